#!/usr/bin/env bash
# `gopa board key|serve|check` end to end, on 127.0.0.1 with an ephemeral port; bounded in time.
# Usage: cli_test.sh /path/to/gopa
set -euo pipefail
gopa="$1"
dir=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

vkey=$("$gopa" board key --db "$dir/b.db" --origin cli.test/board)
[[ "$vkey" == cli.test/board+????????+* ]] || fail "unexpected vkey '$vkey'"
[ "$("$gopa" board key --db "$dir/b.db")" == "$vkey" ] || fail "key changed between runs"

"$gopa" board serve --db "$dir/b.db" --listen 127.0.0.1:0 > "$dir/serve.out" 2> "$dir/serve.err" &
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's/^serving //p' "$dir/serve.out")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || fail "server did not print its URL: $(cat "$dir/serve.err")"
grep -q "^vkey $vkey\$" "$dir/serve.out" || fail "serve did not print the vkey"

"$gopa" board check --board "$url" --key "$vkey" --state "$dir/seen" > "$dir/check1.txt" || fail "check failed: $(cat "$dir/check1.txt")"
grep -q "PASS  checkpoint signature" "$dir/check1.txt" || fail "no PASS line"
"$gopa" board check --board "$url" --key "$vkey" --state "$dir/seen" --json > "$dir/check2.json" || fail "second check failed"
grep -q '"exit_code": 0' "$dir/check2.json" || fail "JSON report lacks exit_code 0"
"$gopa" board check --board "$dir/b.db" > /dev/null || fail "database check failed"

# A wrong pinned key is a log failure (2); a malformed key a usage error (3); no server an I/O error (4).
other=$("$gopa" board key --db "$dir/other.db" --origin cli.test/board)
set +e
"$gopa" board check --board "$url" --key "$other" > /dev/null; rc=$?
[ $rc -eq 2 ] || fail "wrong key: exit $rc, expected 2"
"$gopa" board check --board "$url" --key "not-a-vkey" > /dev/null; rc=$?
[ $rc -eq 3 ] || fail "bad key: exit $rc, expected 3"
kill "$server_pid"; wait "$server_pid"; rc=$?
server_pid=""
[ $rc -eq 0 ] || fail "serve exited $rc on SIGTERM"
"$gopa" board check --board "$url" --key "$vkey" > /dev/null; rc=$?
[ $rc -eq 4 ] || fail "no server: exit $rc, expected 4"
"$gopa" board serve --db "$dir/b.db" --listen nonsense > /dev/null 2>&1; rc=$?
[ $rc -eq 3 ] || fail "bad --listen: exit $rc, expected 3"
set -e
echo "cli_test: all checks passed"
