# Stand-in for node:<major>-bookworm-slim: the debian stand-in plus this machine's Node (node, npm
# and npx under /usr/local, as in the official image) and the user node (uid 1000).
ARG BASE
FROM ${BASE}
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY usr/local /usr/local
# A TLS-intercepting egress proxy needs the host's CAs for `npm ci`; an empty file elsewhere.
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/host-ca/ca.crt
CMD ["node"]
