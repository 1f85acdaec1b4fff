"""Speed of the browser app: how fast ``gtpgames serve`` starts, and how fast the server
answers a click on the board (legal or not), per game.

Usage: python scripts/bench_web.py [--runs N] [--clicks N]

Targets (docs/web.md): ``gtpgames serve`` answers its page in under 1 s from the start; a
click is answered in under 100 ms plus the engine's thinking time. Clicks are timed in a
game between two people at the screen (no thinking), from sending the click on the
WebSocket to the state or error that answers it; the legal clicks are the highlighted
places, the illegal ones a click on an occupied place (or a place no piece can move to).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

SCRIPT = Path(sys.executable).with_name("gtpgames")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "gtpgames"]
OPTIONS: dict[str, dict[str, str]] = {
    "brique": {}, "trisq": {}, "flicker": {}, "brax": {}, "bricka": {},
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a running process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(port: int) -> tuple[subprocess.Popen[bytes], float, float]:
    """A running server, the seconds until it served its page, and the CPU seconds it used
    for that (the wall time grows with the load of the machine; the CPU time much less)."""
    begin = time.perf_counter()
    db = f"sqlite:///{tempfile.mkdtemp(prefix='gtpgames-')}/online.sqlite"
    proc = subprocess.Popen([*COMMAND, "serve", "--port", str(port), "--db", db],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/analysis",
                                        timeout=1) as page:
                assert page.status == 200
            return proc, time.perf_counter() - begin, cpu_seconds(proc.pid)
        except OSError:
            if proc.poll() is not None:
                raise SystemExit("gtpgames serve ended") from None
            time.sleep(0.01)


def ask(ws: Any, message: dict[str, Any]) -> tuple[dict[str, Any], float]:
    begin = time.perf_counter()
    ws.send(json.dumps(message))
    answer: dict[str, Any] = json.loads(ws.recv())
    return answer, time.perf_counter() - begin


def clicks(port: int, game: str, count: int, rng: random.Random) -> tuple[list[float],
                                                                            list[float]]:
    legal: list[float] = []
    illegal: list[float] = []
    with connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
        ws.recv()
        ask(ws, {"action": "new", "game": game, "options": OPTIONS[game], "mode": "human"})
        state, _ = ask(ws, {"action": "legal", "on": True})
        while len(legal) < count and state.get("result") is None:
            if state["targets"]:
                target = rng.choice(state["targets"])
                answer, took = ask(ws, {"action": "click", "target": target})
                legal.append(took)
                if answer["type"] == "state":
                    state = answer
            elif state["pending"]:
                state, took = ask(ws, {"action": "confirm"})
                legal.append(took)
            elif state["specials"]:
                state, took = ask(ws, {"action": "move", "move": state["specials"][0]})
            else:
                break
            occupied = state["moves"][-1] if state["moves"] else None
            if occupied and not state["pending"]:
                token = occupied.split("+")[0].split("-")[-1].rstrip("!")
                answer, took = ask(ws, {"action": "click", "target": token})
                if answer["type"] == "error":
                    illegal.append(took)
                else:  # a click that went on with a move: take it back
                    state = answer
    return legal, illegal


def line(name: str, values: list[float]) -> str:
    if not values:
        return f"{name:8} -"
    ms = [v * 1000 for v in values]
    return (f"{name:8} median {statistics.median(ms):6.1f} ms  worst {max(ms):6.1f} ms  "
            f"({len(ms)} clicks)")


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--runs", type=int, default=5, help="server starts to time")
    parser.add_argument("--clicks", type=int, default=40, help="legal clicks per game")
    args = parser.parse_args()
    starts, cpu = [], []
    for _ in range(args.runs):
        proc, took, used = start(free_port())
        starts.append(took)
        cpu.append(used)
        proc.terminate()
        proc.wait()
    print(f"serve start: median {statistics.median(starts):.2f} s  worst {max(starts):.2f} s "
          f"wall, median {statistics.median(cpu):.2f} s CPU ({args.runs} runs; load average "
          f"{os.getloadavg()[0]:.1f})")
    port = free_port()
    proc, _, _ = start(port)
    try:
        rng = random.Random(1)
        for game in OPTIONS:
            legal, illegal = clicks(port, game, args.clicks, rng)
            print(f"{game:8} legal:   {line('', legal)}")
            print(f"{game:8} illegal: {line('', illegal)}")
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
