# Stand-in for grafana/grafana:<tag>: NOT Grafana (Debian has no package), a placeholder on the
# node stand-in that checks the mounts docker-compose.yml gives Grafana and answers on :3000.
ARG BASE
FROM ${BASE}
COPY grafana-placeholder.mjs /usr/share/grafana-placeholder.mjs
USER 472
EXPOSE 3000
CMD ["node", "/usr/share/grafana-placeholder.mjs"]
