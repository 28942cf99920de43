#!/usr/bin/env bash
# Two Stoa nodes on one PostgreSQL, sharing one data directory, behind Debian's nginx (round-robin), on this machine.
# README.md "Running several nodes" explains it; test/cluster/balanced.test.ts runs this very script in CI.
#
# From a built checkout (`npm ci && npx tsc -p tsconfig.json`):   examples/cluster/run.sh
# then open http://localhost:8080 (the first start prints the Owner's one-time password). ^C stops everything.
#
# Environment (all optional):
#   DATABASE_URL     the PostgreSQL both nodes share. Unset: node 1 starts the embedded PostgreSQL in
#                    $STOA_DATA_DIR/pg and node 2, given the same STOA_DATA_DIR, uses that running one (node 1 owns
#                    it: stopping node 1 stops the database; fine for trying, not for production).
#   STOA_DATA_DIR    shared by both nodes: uploaded and cached media (and the embedded database). Default ./data-cluster
#   PORT             nginx's port (default 8080); NODE1_PORT, NODE2_PORT the nodes' (default 3001, 3002), on 127.0.0.1
#   BASE_URL         default http://localhost:$PORT: the same for both nodes, it is the one address clients see
#   NGINX            default /usr/sbin/nginx (apt-get install nginx)
#   CLUSTER_RUN_DIR  where nginx's configuration, pid, logs and temporary files and the nodes' logs go (default: a
#                    new temporary directory, printed at start)
# Anything else Stoa reads (LOG_LEVEL, NODE_CHECK_MS, INBOX_LEASE_MS…) is passed to both nodes as it is.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
main="$root/dist/src/main.js"
if [ ! -f "$main" ]; then
  echo "run.sh: $main is missing: build first (npx tsc -p tsconfig.json in $root)" >&2
  exit 2
fi

PORT="${PORT:-8080}"
NODE1_PORT="${NODE1_PORT:-3001}"
NODE2_PORT="${NODE2_PORT:-3002}"
NGINX="${NGINX:-/usr/sbin/nginx}"
run_dir="${CLUSTER_RUN_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/stoa-cluster-XXXXXX")}"
mkdir -p "$run_dir"
# What both nodes must agree on: the address clients use, the shared directory, and that nginx is in front.
export BASE_URL="${BASE_URL:-http://localhost:$PORT}"
export STOA_DATA_DIR="${STOA_DATA_DIR:-$PWD/data-cluster}"
export TRUST_PROXY=true
export HOST=127.0.0.1
mkdir -p "$STOA_DATA_DIR"

if [ ! -x "$NGINX" ]; then
  echo "run.sh: $NGINX is missing (apt-get install nginx)" >&2
  exit 2
fi

pids=()
names=()
# Stops in reverse order of start: nginx first (no new requests), node 2, then node 1 (which may own the embedded
# PostgreSQL). Each gets SIGTERM and is waited for (Stoa drains within SHUTDOWN_GRACE_MS).
stop_all() {
  trap - INT TERM EXIT
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[$i]}" 2>/dev/null || true
    wait "${pids[$i]}" 2>/dev/null || true
  done
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
trap stop_all EXIT

# start_node NAME PORT: one Stoa process, its output in $run_dir/NAME.log; returns once it serves.
start_node() {
  local name="$1" port="$2" log="$run_dir/$1.log"
  : >"$log"
  PORT="$port" node "$main" >"$log" 2>&1 &
  pids+=($!)
  names+=("$name")
  local pid=$! waited=0
  until grep -q 'Stoa is running at' "$log"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "run.sh: $name exited during start-up:" >&2
      cat "$log" >&2
      exit 1
    fi
    if ((waited++ > 1200)); then
      echo "run.sh: $name did not start within 60 s (see $log)" >&2
      exit 1
    fi
    sleep 0.05
  done
  echo "$name: pid $pid on 127.0.0.1:$port, log $log"
}

# The example's site configuration with this run's ports, each substituted exactly once (if nginx.conf changes
# shape, this says so rather than running something else).
site="$(cat "$here/nginx.conf")"
substitute() {
  local count
  count="$(grep -cF -- "$1" <<<"$site" || true)"
  if [ "$count" != 1 ]; then
    echo "run.sh: nginx.conf must contain \"$1\" exactly once (found $count)" >&2
    exit 2
  fi
  site="${site/"$1"/"$2"}"
}
substitute 'listen 127.0.0.1:8080;' "listen 127.0.0.1:$PORT;"
substitute 'server 127.0.0.1:3001;' "server 127.0.0.1:$NODE1_PORT;"
substitute 'server 127.0.0.1:3002;' "server 127.0.0.1:$NODE2_PORT;"

# Around it only what running nginx unprivileged, in the foreground, in $run_dir needs.
temps=(client_body proxy fastcgi uwsgi scgi)
for t in "${temps[@]}"; do mkdir -p "$run_dir/$t"; done
{
  echo 'daemon off;'
  echo 'worker_processes 1;'
  # As root nginx would run its worker as nobody, who may not enter $run_dir.
  if [ "$(id -u)" = 0 ]; then echo 'user root;'; fi
  echo "pid $run_dir/nginx.pid;"
  echo "error_log $run_dir/nginx-error.log;"
  echo 'events { worker_connections 1024; }'
  echo 'http {'
  echo "  access_log $run_dir/nginx-access.log;"
  for t in "${temps[@]}"; do echo "  ${t}_temp_path $run_dir/$t;"; done
  echo "$site"
  echo '}'
} >"$run_dir/nginx.conf"

echo "run.sh: database ${DATABASE_URL:+DATABASE_URL}${DATABASE_URL:-embedded in $STOA_DATA_DIR/pg}; data $STOA_DATA_DIR; files in $run_dir"
start_node node1 "$NODE1_PORT"
# Node 1's banner: on the first start of a new database it holds the Owner's one-time password.
awk '/^━/ { n++; print; next } n == 1' "$run_dir/node1.log"
start_node node2 "$NODE2_PORT"
"$NGINX" -c "$run_dir/nginx.conf" -p "$run_dir" -e "$run_dir/nginx-error.log" &
pids+=($!)
names+=(nginx)
echo "nginx: pid $! on 127.0.0.1:$PORT, round-robin to both nodes. Stoa is at $BASE_URL"

# Runs until a signal, or until one of the three exits (then the others are stopped too).
set +e
wait -n "${pids[@]}"
status=$?
set -e
for i in "${!pids[@]}"; do
  if ! kill -0 "${pids[$i]}" 2>/dev/null; then echo "run.sh: ${names[$i]} exited ($status); stopping the others" >&2; fi
done
exit "$status"
