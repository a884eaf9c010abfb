#!/usr/bin/env bash
# Loads the example servers with their real, unmodified clients on
# 127.0.0.1 and prints volt's numbers next to the same server on tokio.
#
#   bash scripts/load.sh            # 10 s per wrk run, 200k redis requests
#   bash scripts/load.sh --quick    # 3 s / 50k: a smoke run
#   bash scripts/load.sh --abuse    # also: 10,000 idle connections and a
#                                   # client that stops reading, during load
#   bash scripts/load.sh --soak 10  # only a soak test: http_hello under
#                                   # wrk and mini_redis under
#                                   # redis-benchmark for 10 minutes, with
#                                   # hostile clients beside them all along
#                                   # (scripts/attackers.py); req/s, p99
#                                   # and RSS of both sampled every 2-3 s
#                                   # (target/soak.tsv), summary at the end
#                                   # (scripts/soak_summary.py)
#
# The tokio twin of each example is the example itself with `volt`
# replaced by `tokio` (sed), built in target/tokio-twins against the same
# Cargo.lock: the migration story, run in reverse.
#
# Needs wrk and redis-benchmark (Debian: apt-get install wrk redis-tools).
# Not part of the test run: it takes a couple of minutes and two free
# ports ranges (18xxx, 16xxx).
set -euo pipefail
cd "$(dirname "$0")/.."

DUR=10
REQS=200000
ABUSE=0
SOAK=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) DUR=3; REQS=50000 ;;
    --abuse) ABUSE=1 ;;
    --soak) SOAK=${2:?--soak takes a number of minutes}; shift ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

for tool in wrk redis-benchmark; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install wrk redis-tools)" >&2; exit 1; }
done

echo "== building (release)"
cargo build -q --release --example http_hello --example mini_redis --example hyper_server

# The tokio twins: examples/ with `volt` replaced by `tokio`
# (scripts/service_bench.py builds them).
python3 -c 'import sys; sys.path.insert(0, "scripts"); import service_bench; service_bench.build_tokio_twins()' >/dev/null
TWINS=target/tokio-twins

VOLT_BIN=target/release/examples
TOKIO_BIN=$TWINS/target/release/examples

if [ "$SOAK" != 0 ]; then
  # Both servers run for the whole soak; each sample is a one-second wrk
  # run against http_hello followed by 20,000 SET/GET requests from
  # redis-benchmark against mini_redis (fixed keys: the store does not
  # grow, so RSS growth would be a leak). Every line is one sample; the
  # summary compares the first and the last minute.
  secs=$(( SOAK * 60 + 120 ))
  "$VOLT_BIN/http_hello" 127.0.0.1:18083 --seconds $secs >/dev/null &
  hpid=$!
  "$VOLT_BIN/mini_redis" 127.0.0.1:16383 --seconds $secs >/dev/null &
  rpid=$!
  sleep 1
  # Hostile clients all along (scripts/attackers.py): idle connections,
  # oversized and malformed requests, replies never read.
  python3 scripts/attackers.py 18083 16383 2>/dev/null &
  apid=$!
  trap 'kill $hpid $rpid $apid 2>/dev/null || true' EXIT
  LOG=target/soak.tsv
  echo "sample  http_rps  http_p99  http_rss_kB  redis_rps  redis_p99_ms  redis_rss_kB  errors" | tee "$LOG"
  end=$(( $(date +%s) + SOAK * 60 ))
  i=0
  while [ "$(date +%s)" -lt "$end" ]; do
    i=$((i + 1))
    out=$(wrk -t2 -c64 -d1s --latency http://127.0.0.1:18083/)
    rps=$(awk '/Requests\/sec/ {print $2}' <<< "$out")
    p99=$(awk '$1 == "99%" {print $2}' <<< "$out")
    errs=$(awk '/Non-2xx|Socket errors/ {print}' <<< "$out" | tr -s ' ' | tr '\n' ';' | tr ' ' '_')
    rcsv=$(timeout 30 redis-benchmark -p 16383 -t set,get -n 20000 -c 50 --csv 2>&1) || errs="${errs}redis-benchmark_failed;"
    rrps=$(awk -F'","' '/^"GET"/ { gsub(/"/, "", $2); print $2 }' <<< "$rcsv")
    rp99=$(awk -F'","' '/^"GET"/ { gsub(/"/, "", $7); print $7 }' <<< "$rcsv")
    [ -n "$rrps" ] || { errs="${errs}no_redis_result;"; rrps=0; rp99=0; }
    hrss=$(awk '/VmRSS/ {print $2}' "/proc/$hpid/status")
    rrss=$(awk '/VmRSS/ {print $2}' "/proc/$rpid/status")
    printf '%6d  %-8s  %-8s  %-11s  %-9s  %-12s  %-12s  %s\n' \
      "$i" "${rps:-0}" "${p99:-0ms}" "$hrss" "$rrps" "$rp99" "$rrss" "${errs:-none}" | tee -a "$LOG"
  done
  # Summary: medians of the first and the last minute, the worst sample,
  # and the samples that saw errors (the exit status says if any did).
  python3 scripts/soak_summary.py "$LOG" "$SOAK"
  exit $?
fi

PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

start() { # bin addr
  "$1" "$2" >/dev/null &
  PIDS+=($!)
  local port=${2##*:}
  for _ in $(seq 100); do
    (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "server $1 did not start" >&2; exit 1
}
stop() { kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true; unset 'PIDS[-1]'; }

wrk_rps() { # url
  wrk -t2 -c64 -d"${DUR}s" "$1" | awk '/Requests\/sec/ {print $2}'
}

redis_rps() { # port -> "ping set get incr" rps
  redis-benchmark -p "$1" -t ping,set,get,incr -n "$REQS" -c 50 -q --csv 2>/dev/null |
    awk -F'","' 'NR > 1 { gsub(/"/, "", $2); printf "%s ", $2 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }'; }

printf '\n%-28s %14s %14s %8s\n' "benchmark" "volt" "tokio" "ratio"
row() { printf '%-28s %14s %14s %8s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"; }

for ex in http_hello hyper_server; do
  start "$VOLT_BIN/$ex" 127.0.0.1:18080; v=$(wrk_rps http://127.0.0.1:18080/); stop
  start "$TOKIO_BIN/$ex" 127.0.0.1:18081; t=$(wrk_rps http://127.0.0.1:18081/); stop
  row "$ex wrk req/s" "$v" "$t"
done

start "$VOLT_BIN/mini_redis" 127.0.0.1:16380; read -r -a v <<< "$(redis_rps 16380)"; stop
start "$TOKIO_BIN/mini_redis" 127.0.0.1:16381; read -r -a t <<< "$(redis_rps 16381)"; stop
names=(PING_INLINE PING_MBULK SET GET INCR)
for i in "${!names[@]}"; do
  row "mini_redis ${names[$i]} req/s" "${v[$i]:-0}" "${t[$i]:-0}"
done

if [ "$ABUSE" = 1 ]; then
  echo
  echo "== abuse: 10,000 idle connections + a client that stops reading, during wrk"
  # Each side of the 10,000 connections is its own process, so the hard
  # limit (often 20,000 or more) is enough for both.
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  echo "(fd limit per process: $(ulimit -n))"
  for side in volt tokio; do
    bin=$VOLT_BIN; [ "$side" = tokio ] && bin=$TOKIO_BIN
    start "$bin/http_hello" 127.0.0.1:18082
    pid=${PIDS[-1]}
    ready=$(mktemp)
    python3 - 127.0.0.1 18082 10000 "$ready" <<'PY' &
import socket, sys, time
host, port, n, ready = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
idle = []
try:
    for _ in range(n):
        s = socket.socket(); s.connect((host, port)); idle.append(s)
except OSError as e:
    print(f"idle connections stopped at {len(idle)}: {e}", file=sys.stderr)
# A client that sends many pipelined requests and never reads the answers.
slow = socket.socket(); slow.connect((host, port))
slow.setblocking(False)
req = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 1000
try:
    for _ in range(1000):
        slow.send(req)
except BlockingIOError:
    pass
with open(ready, "w") as f:
    f.write(str(len(idle)))
time.sleep(60)
PY
    abusers=$!
    for _ in $(seq 600); do [ -s "$ready" ] && break; sleep 0.1; done
    echo "$side: $(cat "$ready") idle connections open, one client not reading"
    rm -f "$ready"
    rss_before=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
    r=$(wrk_rps http://127.0.0.1:18082/)
    rss_after=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
    printf '%-6s wrk req/s with abusers: %s   RSS: %s kB -> %s kB\n' "$side" "$r" "$rss_before" "$rss_after"
    kill "$abusers" 2>/dev/null || true
    stop
  done
fi
