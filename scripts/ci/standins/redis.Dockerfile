# Stand-in for redis:<tag>: Debian's redis-server (7.0), protected mode off and /data as the
# working directory like the official image.
ARG BASE
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends redis-server redis-tools \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /data && chown redis:redis /data \
  && printf '#!/bin/sh\nexec /usr/bin/redis-server "$@" --protected-mode no\n' >/usr/local/bin/redis-server \
  && chmod 755 /usr/local/bin/redis-server
WORKDIR /data
USER redis
EXPOSE 6379
CMD ["redis-server"]
