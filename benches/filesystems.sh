#!/usr/bin/env bash
# `fix` on the file systems users have: checks that every output is right whether the file
# system takes direct I/O or not, and times what direct I/O buys against writing through the
# page cache (`fix --no-direct-io`, which syncs all the same) and `cat > file; sync`.
#
# What (as root, which mounting needs): mounts an ext4 and an xfs file system (loop devices on
# image files), a tmpfs, a ramfs (which has no direct I/O: the writer must fall back), an
# overlayfs (lower on ext4, upper on tmpfs) and, where the kernel has an NFS server and client,
# an NFS export of a directory mounted over localhost; then on each, and on the file system the
# data directory is on:
#   - checks: `fix -o` with direct I/O and without, and `fix --in-place --backup` (mode and
#     backup kept) give the bytes of one reference fix; and whether the writer's `O_DIRECT`
#     was taken there (`strace` of its fcntl calls) or refused and fallen back from;
#   - timings (medians of RUNS, wall and CPU seconds): `fix -q -o` with direct I/O, with
#     `--no-direct-io`, and `cat > file; sync file` of the same input.
# The input is SIZE_MB of `gen_data.py sql` (mostly ASCII, 2% of strings double-encoded, so
# that writing is a large part of the fix). Prints one table; exits 1 when a check fails.
#
# Usage: sudo benches/filesystems.sh   (RUNS=3, SIZE_MB=512 by default; DATA=benches/data)
# CHECK_ONLY=1 skips the timings (what CI runs, with a small SIZE_MB).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="${DATA:-$root/benches/data}"
runs="${RUNS:-3}"
size_mb="${SIZE_MB:-512}"
check_only="${CHECK_ONLY:-}"
mkdir -p "$data"

if [[ $(id -u) -ne 0 ]]; then
    echo "${0##*/}: mounting file systems needs root" >&2
    exit 1
fi
source "$here/lib.sh"
need mkfs.xfs xfsprogs
need strace strace

(cd "$root" && cargo build --release --quiet)
undouble="$root/target/release/undouble"
input="$data/fs-sql-${size_mb}m.sql"
[[ -s "$input" ]] || python3 "$here/gen_data.py" sql "$input" "$size_mb" >&2
size=$(stat -c %s "$input")

work="$(mktemp -d /tmp/undouble-fs.XXXXXX)"
mounted=()
cleanup() {
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
    if [[ -n "${nfs_started:-}" ]]; then exportfs -u "localhost:$work/nfs-export" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

reference="$work/reference.sql"
"$undouble" fix -q -o "$reference" "$input"

# Images big enough for the input, its outputs and a backup.
image_mb=$((size_mb * 5 + 300))
declare -A places
mkdir -p "$work/ext4" "$work/xfs" "$work/tmpfs" "$work/lower" "$work/upper-fs" "$work/overlay"
truncate -s "${image_mb}M" "$work/ext4.img" "$work/xfs.img"
mkfs.ext4 -q -F "$work/ext4.img"
mkfs.xfs -q -f "$work/xfs.img"
mount -o loop "$work/ext4.img" "$work/ext4" && mounted+=("$work/ext4") && places[ext4]="$work/ext4"
mount -o loop "$work/xfs.img" "$work/xfs" && mounted+=("$work/xfs") && places[xfs]="$work/xfs"
mount -t tmpfs -o "size=${image_mb}M" tmpfs "$work/tmpfs" && mounted+=("$work/tmpfs") && places[tmpfs]="$work/tmpfs"
# ramfs has no direct I/O at all: the writer must fall back to the page cache there.
mkdir -p "$work/ramfs"
mount -t ramfs ramfs "$work/ramfs" && mounted+=("$work/ramfs") && places[ramfs]="$work/ramfs"
# overlayfs: the lower layer on ext4, the upper (where writes go) on a tmpfs.
mkdir -p "$work/ext4/lower"
mount -t tmpfs -o "size=${image_mb}M" tmpfs "$work/upper-fs" && mounted+=("$work/upper-fs")
mkdir -p "$work/upper-fs/upper" "$work/upper-fs/work"
if mount -t overlay overlay -o "lowerdir=$work/ext4/lower,upperdir=$work/upper-fs/upper,workdir=$work/upper-fs/work" "$work/overlay"; then
    mounted+=("$work/overlay")
    places[overlayfs]="$work/overlay"
fi
# NFS over localhost, where the kernel has a server.
nfs_note=""
mkdir -p "$work/nfs-export" "$work/nfs"
if ! command -v exportfs >/dev/null 2>&1; then
    apt-get install -y -qq nfs-kernel-server >/dev/null 2>&1 || true
fi
if command -v exportfs >/dev/null 2>&1 && grep -qw nfsd /proc/filesystems && grep -qw nfs /proc/filesystems; then
    service nfs-kernel-server start >/dev/null 2>&1 || true
    exportfs -o rw,no_root_squash,sync "localhost:$work/nfs-export" && nfs_started=1
    if mount -t nfs -o vers=4 "localhost:$work/nfs-export" "$work/nfs" 2>/dev/null; then
        mounted+=("$work/nfs")
        places[nfs]="$work/nfs"
    else
        nfs_note="NFS: the export could not be mounted over localhost"
    fi
else
    nfs_note="NFS: not tested, this kernel has no NFS server or client (nfsd or nfs is missing from /proc/filesystems)"
fi
places[root]="$data"

# direct_taken DIR: whether the writer's O_DIRECT was taken on DIR's file system, from an
# strace of one fix: "yes", "refused, fell back" (by fcntl or by a write), or "not tried".
direct_taken() {
    local dir=$1 trace="$work/strace.txt"
    strace -f -qq -e trace=fcntl,write -o "$trace" \
        "$undouble" fix -q -o "$dir/out.direct" "$dir/in.sql" >/dev/null || true
    if grep -q 'F_SETFL, [^)]*O_DIRECT[^)]*) = 0' "$trace"; then
        if grep -q 'write(.*= -1 EINVAL' "$trace"; then
            echo "refused by a write, fell back"
        else
            echo "yes"
        fi
    elif grep -q 'F_SETFL, [^)]*O_DIRECT.*= -1' "$trace"; then
        echo "refused, fell back"
    else
        echo "not tried"
    fi
}

failed=0
# check CMD...: "ok" or "FAILED" (called in a command substitution: the row below counts them).
check() { if "$@"; then echo ok; else echo FAILED; fi; }
same() { cmp -s "$1" "$2"; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| file system | O_DIRECT taken | fix -o | fix -o --no-direct-io | --in-place --backup | fix -o s (CPU) | --no-direct-io s (CPU) | cat > file; sync s |"
echo "|---|---|---|---|---|---:|---:|---:|"
for fs in ext4 xfs tmpfs ramfs overlayfs nfs root; do
    dir="${places[$fs]:-}"
    [[ -n "$dir" ]] || continue
    if [[ $fs == root ]]; then dir="$data/fs-run.$$"; mkdir -p "$dir"; fi
    if [[ $fs == overlayfs ]]; then
        # The input lies in the lower layer: writing beside it copies up.
        cp "$input" "$work/ext4/lower/in.sql"
    else
        cp "$input" "$dir/in.sql"
    fi
    taken=$(direct_taken "$dir")
    direct_ok=$(check same "$dir/out.direct" "$reference")
    "$undouble" fix -q --no-direct-io -o "$dir/out.cached" "$dir/in.sql" || true
    cached_ok=$(check same "$dir/out.cached" "$reference")
    rm -f "$dir/out.cached"
    cp "$input" "$dir/inplace.sql"
    chmod 640 "$dir/inplace.sql"
    "$undouble" fix -q --in-place --backup .orig "$dir/inplace.sql" || true
    inplace_ok=$(check bash -c "cmp -s '$dir/inplace.sql' '$reference' && cmp -s '$dir/inplace.sql.orig' '$input' && [[ \$(stat -c %a '$dir/inplace.sql') == 640 ]]")
    rm -f "$dir/inplace.sql" "$dir/inplace.sql.orig"
    t_direct="" t_cached="" t_cat=""
    if [[ -z "$check_only" ]]; then
        declare -a wd=() cd=() wc=() cc=() wt=()
        cat "$dir/in.sql" > /dev/null
        for _ in $(seq "$runs"); do
            read -r w c <<<"$(measure "$undouble" fix -q -o "$dir/out.direct" "$dir/in.sql")"; wd+=("$w"); cd+=("$c")
            read -r w c <<<"$(measure "$undouble" fix -q --no-direct-io -o "$dir/out.cached" "$dir/in.sql")"; wc+=("$w"); cc+=("$c")
            read -r w _ <<<"$(measure bash -c "cat '$dir/in.sql' > '$dir/out.cat'; sync '$dir/out.cat'")"; wt+=("$w")
            rm -f "$dir/out.cat" "$dir/out.cached"
        done
        t_direct="$(median <<<"${wd[*]}") ($(median <<<"${cd[*]}"))"
        t_cached="$(median <<<"${wc[*]}") ($(median <<<"${cc[*]}"))"
        t_cat="$(median <<<"${wt[*]}")"
    fi
    echo "| $fs | $taken | $direct_ok | $cached_ok | $inplace_ok | $t_direct | $t_cached | $t_cat |"
    if [[ "$direct_ok $cached_ok $inplace_ok" == *FAILED* || $taken == "not tried" && $fs != ramfs ]]; then
        failed=1
    fi
    rm -f "$dir/in.sql" "$dir/out.direct"
    if [[ $fs == root ]]; then rm -rf "$dir"; fi
    if [[ $fs == overlayfs ]]; then rm -f "$work/ext4/lower/in.sql"; fi
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input: $(basename "$input"), $size bytes; root is $(df -T "$data" | awk 'NR == 2 { print $2 }') on $(df "$data" | awk 'NR == 2 { print $1 }')"
[[ -z "$nfs_note" ]] || echo "$nfs_note"
exit "$failed"
