#!/usr/bin/env python3
"""Start-up time and idle memory of `hearth serve`.

Each run launches the binary with `--port 0 --ready-file F`, times exec → the ready file
(the server is listening and has loaded its data), then reads VmRSS a second later and
stops the server with SIGTERM. Two setups, interleaved run by run:

  apps   in the repository (the documented apps' seeds and rules load by default)
  empty  in an empty folder with an empty seed (nothing loaded)

Usage: Benchmarks/startup.py BINARY [RUNS] [-- extra hearth serve flags]
e.g.   swift build -c release --static-swift-stdlib --product hearth --scratch-path .build-static
       Benchmarks/startup.py .build-static/release/hearth 12
Prints each setup's minimum, median and maximum; the machine's load average beside them
(start-up times swing with other work on a shared machine, the minimum least).
"""
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def one_run(binary, cwd, extra, scratch):
    ready = os.path.join(scratch, "ready")
    if os.path.exists(ready):
        os.unlink(ready)
    args = [binary, "serve", "--port", "0", "--console-port", "0", "--ready-file", ready] + extra
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while not os.path.exists(ready) or os.path.getsize(ready) == 0:
            if proc.poll() is not None:
                raise SystemExit(f"hearth serve exited ({proc.returncode}): {proc.stderr.read().decode()[-500:]}")
            if time.perf_counter() - t0 > 30:
                raise SystemExit("hearth serve did not start within 30 s")
            time.sleep(0.0002)
        started = (time.perf_counter() - t0) * 1000
        time.sleep(1)
        rss = rss_mib(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return started, rss


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    if not argv:
        raise SystemExit(__doc__)
    binary = os.path.abspath(argv[0])
    runs = int(argv[1]) if len(argv) > 1 else 12
    results = {"apps": [], "empty": []}
    with tempfile.TemporaryDirectory() as scratch:
        empty_dir = os.path.join(scratch, "empty")
        os.mkdir(empty_dir)
        seed = os.path.join(empty_dir, "empty.json")
        with open(seed, "w") as f:
            f.write("{}")
        load_before = os.getloadavg()
        for i in range(runs):
            for setup in ("apps", "empty"):
                cwd, flags = (ROOT, []) if setup == "apps" else (empty_dir, ["--seed", seed])
                results[setup].append(one_run(binary, cwd, flags + extra, scratch))
            print(f"\rrun {i + 1}/{runs}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        load_after = os.getloadavg()
    print(f"hearth serve start-up (exec → ready file) and RSS 1 s later, {runs} runs each, interleaved")
    for setup, rows in results.items():
        ms = [r[0] for r in rows]
        mib = [r[1] for r in rows]
        print(f"  {setup:5}  start {min(ms):6.1f} / {statistics.median(ms):6.1f} / {max(ms):6.1f} ms (min / median / max)"
              f"   RSS {min(mib):5.1f} / {statistics.median(mib):5.1f} / {max(mib):5.1f} MiB")
    fmt = lambda l: " ".join(f"{x:.2f}" for x in l)
    print(f"load average before: {fmt(load_before)}; after: {fmt(load_after)}; {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
