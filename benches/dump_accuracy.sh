#!/usr/bin/env bash
# Repair accuracy of dump-aware `undouble fix` as a DBA meets it: real servers, real dump tools,
# real translated text.
#
# Why: the CI round trips (.ci/*-roundtrip.sh) prove that chosen cells are repaired; this
# measures how many of a realistic table's cells come back right, and lists those that do not.
#
# What (benches/dump_accuracy.py does the data, the verdicts and the report):
#   1. builds the truth from the translated text of the Debian packages on this machine
#      (gettext catalogues, translated man pages, glibc locale sources, /usr/share/dict):
#      CELLS text cells of labelled shapes (sentence, heading in capitals, word, lone letter,
#      letter list, one-character CJK name, punctuation-heavy, correct look-alike) in every
#      language found, each with a depth: sent through a connection declared latin1 0, 1 or 2
#      times (2: read back through UTF-8 as the garbled text and written through latin1 again);
#   2. starts a private MariaDB (a unix socket in a temporary directory, no networking) with a
#      latin1 table (VARCHAR, TEXT, MEDIUMTEXT, a utf8mb4 column, BLOB, VARBINARY), and a
#      private PostgreSQL (a LATIN1 database written through client_encoding LATIN1, no TCP);
#   3. dumps them with mariadb-dump --default-character-set=utf8mb4 and pg_dump -E UTF8,
#      repairs the dumps (`fix --convert-charset utf8mb4` for MariaDB, plain `fix` for
#      PostgreSQL, as the README says), reloads each into a fresh UTF-8 database and reads every
#      cell back as hex through UTF-8;
#   4. scores each cell (fixed, missed, wrong, damaged, kept) and writes benches/DUMP_ACCURACY.md
#      and, for every cell neither fixed nor kept, benches/data/dump_accuracy/cells.jsonl.
# Exits 0 whatever the scores; non-zero only when the pipeline itself fails (a server does not
# start, a dump or `fix` fails). A repaired dump that does not reload cleanly is reported loudly
# in the report and on standard error, and its cells are scored as they read back.
#
# Usage (as root on Debian 12, from anywhere):  benches/dump_accuracy.sh
#   UNDOUBLE=/path/to/undouble  the binary to measure (default: cargo build --release, then
#                               target/release/undouble of this checkout)
#   SEED=20261201  CELLS=12000  the draw of the cells, and how many text cells
#   REPORT=path                 where the Markdown goes (default benches/DUMP_ACCURACY.md)
#   KEEP=1                      keep the temporary directory (servers' data, dumps) for a look
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
source "$root/.ci/lib.sh"
start=$SECONDS
export SEED=${SEED:-20261201} CELLS=${CELLS:-12000}
report=${REPORT:-$here/DUMP_ACCURACY.md}
out="$root/benches/data/dump_accuracy"
mkdir -p "$out"

# ---- the tools
if ! command -v mariadb-install-db >/dev/null || ! command -v mariadb-dump >/dev/null; then
    install_without_service MariaDB mariadb-server mariadb-client
fi
mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)
pgbin=$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' 2>/dev/null \
    | sort -V | tail -n 1 | xargs -r dirname)
if [[ -z $pgbin ]]; then
    install_without_service PostgreSQL postgresql
    pgbin=$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' \
        | sort -V | tail -n 1 | xargs -r dirname)
fi
if [[ -n ${UNDOUBLE:-} ]]; then
    undouble=$(realpath "$UNDOUBLE")
else
    say "building undouble (release)"
    (cd "$root" && nice -n 10 cargo build --release --quiet)
    undouble=$root/target/release/undouble
fi
[[ -x $undouble ]] || { echo "dump_accuracy.sh: no undouble binary at $undouble" >&2; exit 2; }
describe=$(git -C "$(dirname "$undouble")" describe --always --dirty 2>/dev/null || echo unknown)
version=$("$undouble" --version)

# ---- a temporary directory, the servers stopped by their PIDs on every exit path
work=$(mktemp -d "${TMPDIR:-/tmp}/undouble-dump-accuracy.XXXXXX")
chmod 755 "$work"
mariadb_pid=""
pgdata=$work/pg/data
as_pg=()
if [[ $(id -u) -eq 0 ]]; then
    as_pg=(runuser -u postgres --)
fi
cleanup() {
    stop_server "$mariadb_pid"
    if [[ -f $pgdata/postmaster.pid ]]; then
        (cd "$work/pg" && "${as_pg[@]}" "$pgbin/pg_ctl" stop -D "$pgdata" -m immediate -w -t 10 \
            >/dev/null 2>&1) || true
        pid=$(head -n 1 "$pgdata/postmaster.pid" 2>/dev/null || true)
        if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
            kill -9 "$pid" 2>/dev/null || true
        fi
    fi
    if [[ -n ${KEEP:-} ]]; then
        echo "kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
py() { nice -n 10 python3 "$here/dump_accuracy.py" "$@"; }

say "building the truth from the text on this machine (SEED=$SEED CELLS=$CELLS)"
py generate "$work"

# ---- MariaDB
say "MariaDB: a private mariadbd in $work/my"
MARIADBD=$mariadbd MARIADBD_NICE=10 start_mariadb "$work/my" --innodb-buffer-pool-size=64M
my=("${mariadb_client[@]}")
socket=$mariadb_socket
"${my[@]}" <"$work/my-schema.sql"
"${my[@]}" --default-character-set=utf8mb4 src <"$work/my-clean.sql"
"${my[@]}" --default-character-set=latin1 src <"$work/my-wrong.sql"
"${my[@]}" --default-character-set=utf8mb4 src <"$work/my-binary.sql"
# my_cells DB FILE: every cell of DB's table as hex of what a UTF-8 client reads.
my_cells() {
    "${my[@]}" --default-character-set=utf8mb4 -N -B "$1" -e "SELECT id,
        HEX(CONVERT(v USING utf8mb4)), HEX(CONVERT(t USING utf8mb4)),
        HEX(CONVERT(m USING utf8mb4)), HEX(CONVERT(u USING utf8mb4)), HEX(b), HEX(vb)
        FROM notes ORDER BY id" >"$2"
}
# Depth 2: the garbled text, read back through UTF-8, written again through latin1.
my_cells src "$work/mariadb.once.tsv"
py again mariadb "$work" >"$work/my-again.sql"
"${my[@]}" --default-character-set=latin1 src <"$work/my-again.sql"
my_cells src "$work/mariadb.source.tsv"

say "MariaDB: mariadb-dump, undouble fix --convert-charset utf8mb4, reload"
commands=(
    "mariadb-dump --default-character-set=utf8mb4 src >mariadb.sql"
    "undouble fix --convert-charset utf8mb4 mariadb.sql -o mariadb.fixed.sql"
    "mariadb --default-character-set=utf8mb4 --force dst <mariadb.fixed.sql"
)
mariadb-dump --no-defaults --socket="$socket" --user=root --default-character-set=utf8mb4 \
    src >"$work/mariadb.sql"
nice -n 10 "$undouble" fix -q --convert-charset utf8mb4 "$work/mariadb.sql" \
    -o "$work/mariadb.fixed.sql"
"${my[@]}" -e 'CREATE DATABASE dst'
"${my[@]}" --force --default-character-set=utf8mb4 dst <"$work/mariadb.fixed.sql" \
    2>"$work/mariadb.load.err" || true
my_cells dst "$work/mariadb.loaded.tsv" \
    || echo "!! mariadb: the repaired table cannot be read back: its cells score as wrong or damaged" >&2
my_version=$("${my[@]}" -N -B -e 'SELECT VERSION()')

# ---- PostgreSQL (it refuses to run as root: as root, the server runs as `postgres`)
say "PostgreSQL: a private postgres in $work/pg"
mkdir -p "$work/pg"
[[ ${#as_pg[@]} -eq 0 ]] || chown postgres: "$work/pg"
pg_server() { (cd "$work/pg" && "${as_pg[@]}" "$@"); }
pg_server "$pgbin/initdb" -D "$pgdata" -U postgres --auth=trust -E UTF8 --locale=C --no-sync \
    >"$work/initdb.log" 2>&1 || { cat "$work/initdb.log" >&2; exit 2; }
pg_server nice -n 10 "$pgbin/pg_ctl" start -D "$pgdata" -l "$work/pg/server.log" -w -t 120 \
    -o "-c listen_addresses='' -c unix_socket_directories='$work/pg' -c fsync=off" \
    >/dev/null || { cat "$work/pg/server.log" >&2; exit 2; }
psql=("$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h "$work/pg" -U postgres)
"${psql[@]}" -d postgres -c \
    "CREATE DATABASE src ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
for file in pg-schema pg-clean pg-wrong pg-binary; do
    "${psql[@]}" -d src -f "$work/$file.sql" >/dev/null
done
pg_cells() {
    "${psql[@]}" -d "$1" -A -t -F $'\t' -c "SELECT id, encode(convert_to(v, 'UTF8'), 'hex'),
        encode(convert_to(t, 'UTF8'), 'hex'), encode(b, 'hex') FROM notes ORDER BY id" >"$2"
}
pg_cells src "$work/postgres.once.tsv"
py again postgres "$work" >"$work/pg-again.sql"
"${psql[@]}" -d src -f "$work/pg-again.sql" >/dev/null
pg_cells src "$work/postgres.source.tsv"

say "PostgreSQL: pg_dump -E UTF8, undouble fix, reload"
commands+=(
    "pg_dump -E UTF8 src >postgres.sql"
    "undouble fix postgres.sql -o postgres.fixed.sql"
    "psql -d dst -f postgres.fixed.sql   # dst: a new UTF8 database"
)
"$pgbin/pg_dump" -h "$work/pg" -U postgres -E UTF8 src >"$work/postgres.sql"
nice -n 10 "$undouble" fix -q "$work/postgres.sql" -o "$work/postgres.fixed.sql"
"${psql[@]}" -d postgres -c \
    "CREATE DATABASE dst ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
"${psql[@]}" -v ON_ERROR_STOP=0 -d dst -f "$work/postgres.fixed.sql" >/dev/null \
    2>"$work/postgres.load.err" || true
pg_cells dst "$work/postgres.loaded.tsv" \
    || echo "!! postgres: the repaired table cannot be read back: its cells score as wrong or damaged" >&2
pg_version=$("${psql[@]}" -d postgres -A -t -c 'SHOW server_version')

# ---- the verdicts
for server in mariadb postgres; do
    if grep -a -q ERROR "$work/$server.load.err"; then
        echo "!! $server: the repaired dump did not reload cleanly:" >&2
        grep -a ERROR "$work/$server.load.err" | cut -c1-300 | head -n 10 >&2
    fi
done
python3 - "$work" "$undouble" "$version" "$describe" "MariaDB $my_version" \
    "PostgreSQL $pg_version" "$((SECONDS - start))" "${commands[@]}" <<'EOF'
import json, os, sys
work, binary, version, describe, mariadb, postgres, seconds, *commands = sys.argv[1:]
meta = {"binary": binary, "version": version, "describe": describe, "mariadb": mariadb,
        "postgres": postgres, "seconds": int(seconds), "seed": os.environ["SEED"],
        "cells": os.environ["CELLS"],
        "commands": [f"UNDOUBLE={binary} SEED={os.environ['SEED']} CELLS={os.environ['CELLS']}"
                     " benches/dump_accuracy.sh", "# which runs, in a temporary directory:"]
        + commands}
for server in ("mariadb", "postgres"):
    with open(f"{work}/{server}.load.err", errors="replace") as f:
        meta[f"{server}_load_errors"] = [l[:300] for l in f.read().splitlines() if "ERROR" in l]
with open(f"{work}/meta.json", "w") as f:
    json.dump(meta, f)
EOF
py score "$work" "$report" "$out/cells.jsonl"
say "report in $report, cells in $out/cells.jsonl ($((SECONDS - start)) s)"
