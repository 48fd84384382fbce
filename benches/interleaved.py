#!/usr/bin/env python3
"""Time two builds of undouble against each other, interleaved (stdlib only).

Why: on a shared machine the load drifts during a benchmark; running the two binaries in
alternation, the order swapped every round, spreads that drift over both. Each round reads the
input with `cat` first so that it is in the page cache (this VM pages out idle memory).

    interleaved.py INPUT OLD_BINARY NEW_BINARY [ROUNDS]

Prints, for `scan -j1` and `fix -o /dev/null -j1`, every run's wall and CPU time (user +
system of the child) and their medians, and the load average before and after.
"""
import resource
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    data, old, new = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) == 5 else 7
    binaries = {"old": old, "new": new}
    commands = {
        "scan -j1": ["scan", "-q", "-j1", data],
        "fix -o /dev/null -j1": ["fix", "-q", "-j1", "-o", "/dev/null", data],
    }
    wall = {(b, c): [] for b in binaries for c in commands}
    cpu = {(b, c): [] for b in binaries for c in commands}
    print("load before:", open("/proc/loadavg").read().strip(), flush=True)
    for round in range(rounds):
        order = list(binaries) if round % 2 == 0 else list(reversed(binaries))
        for command, args in commands.items():
            subprocess.run(["cat", data], stdout=subprocess.DEVNULL, check=True)
            for name in order:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                started = time.perf_counter()
                done = subprocess.run([binaries[name]] + args, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
                wall[(name, command)].append(time.perf_counter() - started)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[(name, command)].append(after.ru_utime - before.ru_utime
                                            + after.ru_stime - before.ru_stime)
                if done.returncode not in (0, 1):
                    sys.exit(f"{binaries[name]} {' '.join(args)}: status {done.returncode}")
    print("load after:", open("/proc/loadavg").read().strip())
    for command in commands:
        for what, times in (("wall", wall), ("CPU", cpu)):
            o = statistics.median(times[("old", command)])
            n = statistics.median(times[("new", command)])
            print(f"{command}, {what}: old median {o:.3f} s, new median {n:.3f} s, "
                  f"new / old {n / o:.3f}")
            for name in binaries:
                print(f"    {name}:", " ".join(f"{t:.3f}" for t in times[(name, command)]))


if __name__ == "__main__":
    main()
