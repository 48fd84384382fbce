#!/usr/bin/env bash
# A mariadb-dump file whose values are mostly garbled, made by a real MariaDB from real text:
# the input benches/compare.sh times the dump-aware path on.
#
# Why: gen_data.py's dumps garble 2% of their strings in Python; a table that an application
# filled for years through a connection declared latin1 is garbled almost throughout, and its
# bytes are whatever the server and mariadb-dump make of them. This one is made that way: a
# real server stores the text, a real mariadb-dump writes it.
#
# What: starts a private MariaDB (a unix socket in a temporary directory, no networking, as
# benches/dump_accuracy.sh does), creates a latin1 table `notes` (id INT, title VARCHAR(255),
# body TEXT, note TEXT in utf8mb4, n INT, data BLOB), has benches/garbled_dump.py draw rows of
# real UTF-8 text (benches/data/cleantext/, which benches/cleantext/build.sh builds; else
# corpus/clean-multilingual.txt) until the dump would reach SIZE_MB MiB, loads nine rows in ten
# with LOAD DATA LOCAL INFILE ... CHARACTER SET latin1 (the server takes each UTF-8 byte for a
# latin1 character: the text is stored double-encoded, the blobs as they are) and the tenth
# correctly (CHARACTER SET utf8mb4), checks that every row loaded without a warning, dumps the
# database with mariadb-dump --default-character-set=utf8mb4 and checks the dump's size. The
# server is stopped and the temporary directory removed on every exit path.
#
# Idempotent: does nothing when the dump is already there (it is written under a temporary name
# and renamed when complete). Installs MariaDB from Debian's packages if missing (as root).
#
# Usage: benches/garbled_dump.sh   (prints the dump's path)
#   SIZE_MB=600          the dump's size in MiB; the file is $DATA/garbled-dump-${SIZE_MB}m.sql
#   DATA=benches/data    where the dump goes
#   SOURCE=path          the real text: a directory of *.txt or a file (default: see above)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=../.ci/lib.sh
source "$root/.ci/lib.sh"
data="${DATA:-$root/benches/data}"
size_mb="${SIZE_MB:-600}"
dump="$data/garbled-dump-${size_mb}m.sql"
if [[ -s $dump ]]; then
    echo "$dump"
    exit 0
fi
source_text="${SOURCE:-}"
if [[ -z $source_text ]]; then
    source_text="$root/benches/data/cleantext"
    if [[ ! -f $source_text/.complete ]]; then
        source_text="$root/corpus/clean-multilingual.txt"
        say "garbled_dump.sh: no clean-text corpus (benches/cleantext/build.sh builds it): the text comes from $source_text"
    fi
fi
[[ -e $source_text ]] || { echo "garbled_dump.sh: no text at $source_text" >&2; exit 2; }
mkdir -p "$data"

if ! command -v mariadb-install-db >/dev/null || ! command -v mariadb-dump >/dev/null; then
    install_without_service MariaDB mariadb-server mariadb-client
fi
mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)

# ---- a temporary directory, the server stopped by its PID on every exit path
work=$(mktemp -d "${TMPDIR:-/tmp}/undouble-garbled-dump.XXXXXX")
chmod 755 "$work"
mariadb_pid=""
cleanup() {
    stop_server "$mariadb_pid"
    rm -rf "$work"
    rm -f "$dump.tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "garbled_dump.sh: drawing rows from $source_text up to a ${size_mb} MiB dump"
nice -n 10 python3 "$here/garbled_dump.py" "$source_text" "$work" "$size_mb" >"$work/drawn"
read -r rows clean_rows estimate <"$work/drawn"

say "garbled_dump.sh: a private mariadbd in $work/my"
# The data is thrown away with the directory: no durability is needed, only a fast load.
MARIADBD=$mariadbd MARIADBD_NICE=10 start_mariadb "$work/my" --innodb-buffer-pool-size=256M \
    --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0
my=("${mariadb_client[@]}")
socket=$mariadb_socket

"${my[@]}" <<'SQL'
CREATE DATABASE bench;
CREATE TABLE bench.notes (
  id INT NOT NULL PRIMARY KEY,
  title VARCHAR(255),
  body TEXT,
  note TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci,
  n INT,
  data BLOB
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
SQL
# load FILE CHARSET: LOAD DATA in the strict mode, and the warnings it left (none expected: a
# warning means a value was cut or changed, and the dump would not be what was drawn).
load() {
    local warnings
    warnings=$("${my[@]}" --local-infile=1 -N -B bench -e "
        LOAD DATA LOCAL INFILE '$1' INTO TABLE notes CHARACTER SET $2
            (id, title, body, note, n, data);
        SHOW COUNT(*) WARNINGS;")
    if [[ $warnings != 0 ]]; then
        echo "garbled_dump.sh: loading $1 through $2 left $warnings warnings" >&2
        exit 2
    fi
}
say "garbled_dump.sh: loading $((rows - clean_rows)) rows through latin1, $clean_rows through utf8mb4"
load "$work/garbled.tsv" latin1
load "$work/clean.tsv" utf8mb4
loaded=$("${my[@]}" -N -B -e 'SELECT COUNT(*) FROM bench.notes')
if [[ $loaded != "$rows" ]]; then
    echo "garbled_dump.sh: $loaded rows in the table, $rows drawn" >&2
    exit 2
fi

say "garbled_dump.sh: mariadb-dump --default-character-set=utf8mb4"
mariadb-dump --no-defaults --socket="$socket" --user=root --default-character-set=utf8mb4 \
    bench >"$dump.tmp"
size=$(stat -c %s "$dump.tmp")
want=$((size_mb << 20))
# The rows were drawn to the size from what mariadb-dump writes of each value; far from it,
# that reckoning is wrong (and so is the file's name).
if ((size > want || size < want * 97 / 100)); then
    echo "garbled_dump.sh: the dump has $size bytes, $want were meant (reckoned $estimate)" >&2
    exit 2
fi
mv "$dump.tmp" "$dump"
say "garbled_dump.sh: $dump, $size bytes, $rows rows ($clean_rows clean)"
echo "$dump"
