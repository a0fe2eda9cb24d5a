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
port=${url##*:}

# The log's key is in its own file, mode 0600; the database holds no secret.
[ "$(stat -c %a "$dir/b.db.key")" == 600 ] || fail "key file mode is $(stat -c %a "$dir/b.db.key")"
seed=$(cut -d' ' -f2 "$dir/b.db.key")
if grep -q "$seed" "$dir/b.db"; then fail "the database holds the signing seed"; fi

# A port in use: refused before anything is created.
set +e
"$gopa" board serve --db "$dir/new.db" --listen "127.0.0.1:$port" > /dev/null 2> "$dir/inuse.err"; rc=$?
set -e
[ $rc -eq 4 ] || fail "port in use: exit $rc, expected 4"
for f in new.db new.db.state new.db.key; do
  [ ! -e "$dir/$f" ] || fail "port in use left $f behind"
done

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
# A new board whose server cannot start (TLS files that do not load) is removed again.
"$gopa" board serve --db "$dir/tls.db" --listen 127.0.0.1:0 --tls-cert "$dir/none.pem" --tls-key "$dir/none.pem" \
  > /dev/null 2> "$dir/tls.err"; rc=$?
[ $rc -eq 3 ] || fail "unloadable TLS files: exit $rc, expected 3"
for f in tls.db tls.db-wal tls.db-shm tls.db.state tls.db.key; do
  [ ! -e "$dir/$f" ] || fail "a failed start left $f behind"
done
# Thread counts outside 1..4096 are refused with a message, before anything is opened.
for t in -1 0 5000; do
  "$gopa" board serve --db "$dir/t.db" --listen 127.0.0.1:0 --threads "$t" > /dev/null 2> "$dir/threads.err"; rc=$?
  [ $rc -eq 3 ] || fail "--threads $t: exit $rc, expected 3"
  grep -q -- "--threads must be between 1 and 4096" "$dir/threads.err" || fail "--threads $t: no message"
  [ ! -e "$dir/t.db" ] || fail "--threads $t created the database"
done
# Another application's SQLite file is not made into a board.
if command -v sqlite3 > /dev/null 2>&1; then
  sqlite3 "$dir/other.sqlite" "CREATE TABLE accounts(id INTEGER PRIMARY KEY)"
  "$gopa" board serve --db "$dir/other.sqlite" --listen 127.0.0.1:0 > /dev/null 2> "$dir/other.err"; rc=$?
  [ $rc -eq 3 ] || fail "foreign database: exit $rc, expected 3"
  [ "$(sqlite3 "$dir/other.sqlite" "SELECT count(*) FROM sqlite_schema")" == 1 ] || fail "tables added to a foreign database"
  [ ! -e "$dir/other.sqlite.key" ] || fail "foreign database: key file created"
fi
# A read-only copy in a read-only directory is audited, and nothing is left beside it.
mkdir "$dir/ro"
cp "$dir/b.db" "$dir/ro/b.db"
chmod 444 "$dir/ro/b.db"
chmod 555 "$dir/ro"
"$gopa" board check --board "$dir/ro/b.db" --key "$vkey" > "$dir/ro.txt"; rc=$?
chmod 755 "$dir/ro"
[ $rc -eq 0 ] || fail "read-only copy: exit $rc: $(cat "$dir/ro.txt")"
[ "$(ls -A "$dir/ro")" == b.db ] || fail "audit left files behind: $(ls -A "$dir/ro")"
set -e
echo "cli_test: all checks passed"
