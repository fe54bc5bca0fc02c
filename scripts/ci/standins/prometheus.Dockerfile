# Stand-in for prom/prometheus:<tag>: Debian's prometheus (2.42), with the official image's
# entrypoint, user and data directory.
ARG BASE
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends prometheus \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /prometheus && chown nobody:nogroup /prometheus
WORKDIR /prometheus
USER nobody
EXPOSE 9090
ENTRYPOINT ["/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
