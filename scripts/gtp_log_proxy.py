"""Run a GTP engine behind a proxy that logs every command with its arrival time.

Usage: python scripts/gtp_log_proxy.py LOGFILE ENGINE [ARGS...]

Each command line the controller sends is appended to LOGFILE as ``PID SECONDS COMMAND``,
and the end of each response (its empty line) as ``PID SECONDS =`` (PID of the proxy, so that
a GoGui player and its ruler, two processes of one command line, can be told apart).

Used to time GoGui: ``gogui -program "python scripts/gtp_log_proxy.py /tmp/log gtpgames gtp
brax --player random" -computer-both -auto``;
the time per click is the time between two ``genmove`` commands of the player; the ruler's
commands, and the time it took to answer them, are counted between them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("logfile", help="the file the commands are appended to")
    parser.add_argument("engine", nargs=argparse.REMAINDER,
                        help="the engine's command line (program and arguments)")
    args = parser.parse_args()
    if not args.engine:
        parser.error("an engine command line is needed after LOGFILE")
    log = open(args.logfile, "a", buffering=1, encoding="utf-8")  # noqa: SIM115
    lock = threading.Lock()
    child = subprocess.Popen(args.engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    out = child.stdout
    pid = os.getpid()

    def write(text: str) -> None:
        with lock:
            log.write(f"{pid} {time.monotonic():.6f} {text}\n")

    def copy_out() -> None:
        for line in iter(out.readline, b""):
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
            if line == b"\n":
                write("=")

    threading.Thread(target=copy_out, daemon=True).start()
    for line in sys.stdin.buffer:
        write(line.decode(errors="replace").rstrip())
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()
    child.wait()


if __name__ == "__main__":
    main()
