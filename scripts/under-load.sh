#!/usr/bin/env bash
# Runs a command RUNS times in a row while one busy-loop process per core keeps the CPU saturated,
# and prints how many runs failed (their logs are kept under $OUT). A flaky test shows up here.
#   scripts/under-load.sh 20 npx vitest run apps/opsdesk packages/server
set -u
RUNS=${1:?usage: under-load.sh RUNS COMMAND...}
shift
OUT=${OUT:-$(mktemp -d /tmp/under-load.XXXXXX)}
CORES=$(nproc)
pids=()
for _ in $(seq "$CORES"); do
  node -e 'for (;;) {}' &
  pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
failed=0
for i in $(seq "$RUNS"); do
  if "$@" >"$OUT/run-$i.log" 2>&1; then
    echo "run $i: ok"
    rm -f "$OUT/run-$i.log"
  else
    failed=$((failed + 1))
    echo "run $i: FAILED ($OUT/run-$i.log)"
  fi
done
echo "$failed of $RUNS runs failed under load ($CORES busy loops); logs of failures in $OUT"
[ "$failed" -eq 0 ]
