# Stand-in for prom/alertmanager:<tag>: Debian's prometheus-alertmanager (0.25), with the official
# image's binaries (/bin/alertmanager, /bin/amtool), default config, user and data directory.
ARG BASE
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends prometheus-alertmanager \
  && rm -rf /var/lib/apt/lists/* \
  && ln -s /usr/bin/prometheus-alertmanager /usr/bin/alertmanager \
  && mkdir -p /etc/alertmanager /alertmanager \
  && cp /etc/prometheus/alertmanager.yml /etc/alertmanager/alertmanager.yml \
  && chown nobody:nogroup /alertmanager
WORKDIR /alertmanager
USER nobody
EXPOSE 9093
ENTRYPOINT ["/bin/alertmanager"]
CMD ["--config.file=/etc/alertmanager/alertmanager.yml", "--storage.path=/alertmanager"]
