#!/usr/bin/env bash
# A real PostgreSQL round trip for dump-aware `undouble fix`.
#
# Starts a private PostgreSQL server in a temporary directory (initdb; no TCP, a unix socket
# there; run as the `postgres` user when we are root, since postgres refuses to run as root;
# stopped on every exit path), creates a LATIN1 database and fills it the way damage happens
# there: UTF-8 text sent by a client that declared client_encoding LATIN1 (stored byte for
# byte, one character a byte, so that `pg_dump -E UTF8` writes it double-encoded), the same
# mistake made twice (triple-encoded), text stored correctly, legitimate look-alikes, bytea
# values whose bytes look double-encoded, a control column, defaults, comments and CHECK
# constraints garbled the same way (a status column the rows fill with what the checks allow),
# and a function whose body holds look-alikes.
# Then, for two dumps of it (COPY blocks, the default; and multi-row INSERTs with the bytea
# escape format): undouble fix, load into a fresh UTF8 database (going on past errors, which the
# verdict counts: a check's literal left garbled makes the repaired rows fail it), and compare
# every cell with its true value. Prints one line per cell class and dump, and `N passed, N
# failed` last; exits 1 on a failure.
#
# No `--convert-charset`: `pg_dump -E UTF8` already declares `SET client_encoding = 'UTF8'`,
# and PostgreSQL columns carry no character set of their own (the database has one).
#
# Installs the postgresql package from Debian when no server is found (as root), with service
# start-up denied. Uses target/release/undouble, built if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

source .ci/lib.sh

# ---- PostgreSQL, installed without a service
server_bin() {
    find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' 2>/dev/null \
        | sort -V | tail -n 1 | xargs -r dirname
}
bin=$(server_bin)
if [[ -z $bin ]]; then
    install_without_service PostgreSQL postgresql
    if pgrep -x postgres >/dev/null; then
        echo "warning: a PostgreSQL service is running (not started by this script; left alone)" >&2
    fi
    bin=$(server_bin)
    if [[ -z $bin ]]; then
        echo "postgresql installed, but no /usr/lib/postgresql/*/bin/initdb" >&2
        exit 2
    fi
fi

# ---- undouble
undouble=$root/target/release/undouble
if [[ ! -x $undouble ]]; then
    say "building undouble (release)"
    cargo build --release --locked --quiet
fi

# ---- a private server
work=$(mktemp -d "${TMPDIR:-/tmp}/undouble-postgres.XXXXXX")
# postgres refuses to run as root: as root, the server runs as the `postgres` user, which owns
# the temporary directory (the clients, run as root, reach its socket anyway).
as_server=()
if [[ $(id -u) -eq 0 ]]; then
    if ! id -u postgres >/dev/null 2>&1; then
        echo "running as root, and there is no postgres user to run the server as" >&2
        rm -rf "$work"
        exit 2
    fi
    chown postgres: "$work"
    as_server=(runuser -u postgres --)
fi
server() { (cd "$work" && "${as_server[@]}" "$@"); }
data=$work/data
cleanup() {
    if [[ -f $data/postmaster.pid ]]; then
        server "$bin/pg_ctl" stop -D "$data" -m immediate -w -t 10 >/dev/null 2>&1 || true
        pid=$(head -n 1 "$data/postmaster.pid" 2>/dev/null || true)
        if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
            kill -9 "$pid" 2>/dev/null || true
        fi
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! server test -w "$work"; then
    echo "the server user cannot write to $work: set TMPDIR to a directory it can reach" >&2
    exit 2
fi
say "starting a private postgres in $work"
server "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C --no-sync \
    >"$work/initdb.log" 2>&1 || { cat "$work/initdb.log" >&2; exit 2; }
server "$bin/pg_ctl" start -D "$data" -l "$work/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$work' -c fsync=off" \
    >/dev/null || { cat "$work/server.log" >&2; exit 2; }
psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$work" -U postgres)
dump=("$bin/pg_dump" -h "$work" -U postgres -E UTF8)

# ---- the damage, done the classic way
# The clean-text corpus (benches/cleantext/build.sh) if it was built, else the committed
# sample; ROUNDTRIP_TEXT names another file or directory of clean text.
source_text=${ROUNDTRIP_TEXT:-$root/benches/data/cleantext}
if [[ ! -e $source_text ]]; then
    source_text=$root/corpus/clean-multilingual.txt
fi
say "generating rows from $source_text"
python3 .ci/postgres_roundtrip.py generate "$work" "$source_text" corpus/clean-multilingual.txt >&2
"${psql[@]}" -d postgres -c \
    "CREATE DATABASE src ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
for file in schema via-latin1 via-utf8; do
    "${psql[@]}" -d src -f "$work/$file.sql" >/dev/null
done

# ---- dump, repair, load: once as COPY blocks, once as INSERTs with bytea in escape format
say "dumping, repairing, loading"
"${dump[@]}" src >"$work/copy.dump.sql"
PGOPTIONS='-c bytea_output=escape' "${dump[@]}" --column-inserts --rows-per-insert=25 src \
    >"$work/inserts.dump.sql"
# The DDL texts the round trip checks, as `what<TAB>hex` lines.
ddl_query="WITH ddl (what, text) AS (
    SELECT 'default', column_default FROM information_schema.columns
        WHERE table_name = 'Notes' AND column_name = 'v'
    UNION ALL SELECT 'table comment', obj_description('public.\"Notes\"'::regclass, 'pg_class')
    UNION ALL SELECT 'column comment', col_description('public.\"Notes\"'::regclass,
        (SELECT attnum FROM pg_attribute
         WHERE attrelid = 'public.\"Notes\"'::regclass AND attname = 'Note'))
    UNION ALL SELECT 'function', public.motto()
    UNION ALL SELECT 'procedure', pg_get_functiondef('public.remember'::regproc)
    UNION ALL SELECT 'child default', column_default FROM information_schema.columns
        WHERE table_name = 'Later' AND column_name = 'st'
    UNION ALL SELECT 'check', pg_get_constraintdef(oid) FROM pg_constraint
        WHERE conname = 'notes_st_check' AND conrelid = 'public.\"Notes\"'::regclass
    UNION ALL SELECT 'not valid check', pg_get_constraintdef(oid) FROM pg_constraint
        WHERE conname = 'notes_st_later' AND conrelid = 'public.\"Notes\"'::regclass
    UNION ALL SELECT 'partial index', pg_get_indexdef('public.notes_st_first'::regclass))
    SELECT what, encode(convert_to(text, 'UTF8'), 'hex') FROM ddl"
"${psql[@]}" -d src -A -t -F $'\t' -c "$ddl_query" >"$work/src.ddl.tsv"
for variant in copy inserts; do
    "$undouble" scan --json "$work/$variant.dump.sql" >"$work/$variant.scan.json" || [[ $? -eq 1 ]]
    status=0
    "$undouble" fix -q "$work/$variant.dump.sql" -o "$work/$variant.fixed.sql" || status=$?
    if [[ $status -ne 0 ]]; then
        echo "undouble fix of the $variant dump exited with $status (0 expected: repaired)" >&2
        exit 2
    fi
    "${psql[@]}" -d postgres -c \
        "CREATE DATABASE $variant ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
    # Going on past errors, for the verdict to count what they cost (VARIANT.load.err).
    "${psql[@]}" -v ON_ERROR_STOP=0 -d "$variant" -f "$work/$variant.fixed.sql" >/dev/null \
        2>"$work/$variant.load.err"
    cat "$work/$variant.load.err" >&2
    "${psql[@]}" -d "$variant" -A -t -F $'\t' -c "SELECT id,
        encode(convert_to(v, 'UTF8'), 'hex'), encode(convert_to(t, 'UTF8'), 'hex'),
        encode(convert_to(\"Note\", 'UTF8'), 'hex'), encode(b, 'hex'),
        encode(convert_to(ctl, 'UTF8'), 'hex'), encode(convert_to(st, 'UTF8'), 'hex')
        FROM public.\"Notes\" ORDER BY id" >"$work/$variant.loaded.tsv"
    "${psql[@]}" -d "$variant" -A -t -F $'\t' -c "$ddl_query" >"$work/$variant.ddl.tsv"
done

# ---- ranges of a real dump: the table copied into as many tables as make a dump of several
# 8 MiB blocks, so that ranges cut inside a COPY block's rows
say "ranges of a real dump (fix --range, scan --range, merge)"
copies=$(( 30000000 / $(stat -c %s "$work/copy.dump.sql") + 1 ))
for k in $(seq "$copies"); do
    echo "CREATE TABLE public.notes_$k AS SELECT * FROM public.\"Notes\";"
done | "${psql[@]}" -d src >/dev/null
"${dump[@]}" src >"$work/big.dump.sql"
verdict_ranges=0
python3 benches/ranges.py --undouble "$undouble" "$work/big.dump.sql" || verdict_ranges=1

# ---- the verdict (its last line is `N passed, N failed`)
status=0
python3 .ci/postgres_roundtrip.py check "$work" copy inserts || status=1
[[ $verdict_ranges -eq 0 ]] || status=1
exit "$status"
