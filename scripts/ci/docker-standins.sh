#!/usr/bin/env bash
# docker-standins.sh COMMAND [ARG...]: runs COMMAND with DOCKER_HOST naming a private Docker
# engine that holds stand-ins for the base images the Dockerfile and docker-compose.yml pull, for
# a CI machine with no image registry (.ci/run calls it only then). Stops that engine and unmounts
# what it mounted when COMMAND ends, whatever the outcome; exits with COMMAND's status.
#
# The engine: Debian's dockerd with its own socket, data and exec roots under the cache folder,
# no iptables, forwarding, NAT, default bridge or userland proxy, so a compose stack on it lives
# on its own bridge and publishes nothing on this machine's ports. Builds need --network host
# (the npm registry and the Debian mirror are reached from the host's network).
#
# The stand-ins, made under the exact names the files use (scripts/ci/base-images.mjs lists them)
# from scripts/ci/standins/*.Dockerfile, and kept in the cache for the next run:
#   debian:bookworm-slim  debootstrap --variant=minbase bookworm (the base of the others)
#   node:<N>-...          this machine's Node N (node, npm), user node (uid 1000)
#   redis:*               Debian's redis-server (7.0)
#   prom/prometheus:*     Debian's prometheus (2.42)
#   prom/alertmanager:*   Debian's prometheus-alertmanager (0.25)
#   grafana/grafana:*     a placeholder: checks its mounts and answers :3000 (no Debian package)
#
# Env: MAKERD_STANDINS_DIR (default /var/tmp/makerd-standins: the engine's data root, the cache;
# delete it for a cold run). Runs as root (dockerd, debootstrap, apt-get).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
RECIPES="$ROOT/scripts/ci/standins"
CACHE="${MAKERD_STANDINS_DIR:-/var/tmp/makerd-standins}"
SOCK="$CACHE/docker.sock"
LOG="$CACHE/logs"
DOCKERD_PID=""
T0=$(date +%s)

say() { echo "standins [$(($(date +%s) - T0))s]: $*"; }
die() { say "FAILED: $*" >&2; exit 1; }

[ $# -gt 0 ] || die "usage: docker-standins.sh COMMAND [ARG...]"
[ "$(id -u)" = 0 ] || die "needs root (dockerd, debootstrap, apt-get)"
mkdir -p "$CACHE" "$LOG"
# One run per cache at a time: a second one's cleanup would stop the first one's engine.
exec 9>"$CACHE/lock"
flock -n 9 || die "another run is using $CACHE"

cleanup() {
  local rc=$?
  set +e
  if [ -n "$DOCKERD_PID" ] && kill -0 "$DOCKERD_PID" 2>/dev/null; then
    # Containers left behind would come back with their restart policy on the next start.
    local left
    left=$(docker ps -aq 2>/dev/null)
    [ -n "$left" ] && docker rm -f $left >/dev/null 2>&1
    docker volume prune -f >/dev/null 2>&1
    docker network prune -f >/dev/null 2>&1
    kill "$DOCKERD_PID"
    for _ in $(seq 1 60); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$DOCKERD_PID" 2>/dev/null && kill -9 "$DOCKERD_PID"
    wait "$DOCKERD_PID" 2>/dev/null
  fi
  # dockerd leaves its exec root's netns mounts (binds of this machine's network namespace).
  awk -v c="$CACHE/" 'index($2, c) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
    umount "$m" || umount -l "$m"
  done
  rm -f "$SOCK"
  say "engine stopped"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- tools: Debian's docker.io (dockerd 20.10, its CLI), docker-compose 1.29, debootstrap
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v debootstrap >/dev/null || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"; } \
    >"$LOG/apt.log" 2>&1 || die "apt-get install ${need[*]} (see $LOG/apt.log)"
fi
# Debian's CLI, which matches its daemon and builds with the daemon's BuildKit; a newer docker
# earlier on PATH would want the buildx plugin for that.
mkdir -p "$CACHE/bin"
ln -sf /usr/bin/docker "$CACHE/bin/docker"
export PATH="$CACHE/bin:$PATH" DOCKER_HOST="unix://$SOCK" DOCKER_BUILDKIT=1 DOCKER_CLI_HINTS=false

# --- the private engine
rm -f "$SOCK"
start_dockerd() { # STORAGE_DRIVER
  dockerd --host "unix://$SOCK" --data-root "$CACHE/root-$1" --exec-root "$CACHE/exec" \
    --pidfile "$CACHE/dockerd.pid" --storage-driver "$1" \
    --iptables=false --ip-forward=false --ip-masq=false --bridge=none --userland-proxy=false \
    >"$LOG/dockerd-$1.log" 2>&1 &
  DOCKERD_PID=$!
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && return 0
    kill -0 "$DOCKERD_PID" 2>/dev/null || return 1
    sleep 0.5
  done
  return 1
}
# overlay2 where the cache's filesystem allows it; vfs (full copies, slow) otherwise.
if start_dockerd overlay2; then
  say "dockerd up (overlay2)"
else
  kill "$DOCKERD_PID" 2>/dev/null; wait "$DOCKERD_PID" 2>/dev/null; DOCKERD_PID=""; rm -f "$SOCK"
  start_dockerd vfs || die "dockerd did not start: $(tail -3 "$LOG"/dockerd-*.log | tr '\n' ' ')"
  say "dockerd up (vfs: overlay2 refused)"
fi
# A run that was killed may have left containers whose restart policy just started them again.
left=$(docker ps -aq)
[ -z "$left" ] || docker rm -f $left >/dev/null

# --- the stand-ins
have() { docker image inspect "$1" >/dev/null 2>&1; }
build_standin() { # IMAGE RECIPE CONTEXT BASE
  DOCKER_BUILDKIT=0 docker build --network host --build-arg BASE="$4" -t "$1" \
    -f "$RECIPES/$2.Dockerfile" "$3" >"$LOG/standin-$2.log" 2>&1 \
    || die "stand-in $1 did not build (see $LOG/standin-$2.log)"
}

base=debian:bookworm-slim
if ! have "$base"; then
  say "$base: debootstrap bookworm"
  rootfs="$CACHE/rootfs"
  rm -rf "$rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian \
    >"$LOG/debootstrap.log" 2>&1 || die "debootstrap (see $LOG/debootstrap.log)"
  # Like the official image: deb822 sources with updates and security, no apt caches kept.
  rm -f "$rootfs/etc/apt/sources.list"
  cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  rm -rf "$rootfs/var/lib/apt/lists/"* "$rootfs/var/cache/apt/"*.bin "$rootfs/var/cache/apt/archives/"*.deb
  tar -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' - "$base" >/dev/null || die "docker import of the rootfs"
  rm -rf "$rootfs"
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
images=$(node "$ROOT/scripts/ci/base-images.mjs") || die "cannot list the images of the Dockerfile and docker-compose.yml"
# node first: the grafana placeholder runs on it.
for image in $(echo "$images" | grep '^node:'; echo "$images" | grep -v '^node:'); do
  have "$image" && continue
  say "$image: making a stand-in"
  ctx="$CACHE/ctx"
  rm -rf "$ctx"
  mkdir -p "$ctx"
  case "${image%%:*}" in
    node)
      [[ "$image" =~ ^node:${node_major}(-|$) ]] \
        || die "$image needs Node ${image#node:}, this machine has $(node --version)"
      mkdir -p "$ctx/usr/local/bin" "$ctx/usr/local/lib/node_modules" "$ctx/usr/local/share/host-ca"
      cp "$(readlink -f "$(command -v node)")" "$ctx/usr/local/bin/node"
      cp -a "$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)" \
        "$ctx/usr/local/lib/node_modules/npm"
      ln -s ../lib/node_modules/npm/bin/npm-cli.js "$ctx/usr/local/bin/npm"
      ln -s ../lib/node_modules/npm/bin/npx-cli.js "$ctx/usr/local/bin/npx"
      cp /etc/ssl/certs/ca-certificates.crt "$ctx/usr/local/share/host-ca/ca.crt" 2>/dev/null \
        || : >"$ctx/usr/local/share/host-ca/ca.crt"
      build_standin "$image" node "$ctx" "$base" ;;
    redis) build_standin "$image" redis "$ctx" "$base" ;;
    prom/prometheus) build_standin "$image" prometheus "$ctx" "$base" ;;
    prom/alertmanager) build_standin "$image" alertmanager "$ctx" "$base" ;;
    grafana/grafana)
      cp "$RECIPES/grafana-placeholder.mjs" "$ctx/"
      build_standin "$image" grafana "$ctx" "$(echo "$images" | grep -m1 '^node:')" ;;
    *) die "no stand-in recipe for $image: add one to scripts/ci/standins/" ;;
  esac
  rm -rf "$ctx"
done
say "stand-ins ready: $(echo $images)"

"$@"
