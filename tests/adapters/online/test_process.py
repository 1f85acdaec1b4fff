"""The real ``gtpgames serve`` process (uvicorn): a bot connects over a real WebSocket with
its token, and a refusal is logged on stderr naming the account."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from websockets.sync.client import connect

from tests.adapters.web_helpers import free_port
from tests.protocol.test_e2e import COMMAND


@pytest.mark.slow  # a real server and bridge (6 s)
def test_serve_process_with_a_bot(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'online.sqlite'}"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "unused")}
    token = subprocess.run([*COMMAND, "serve", "add-bot", "alpha", "--db", db],
                           capture_output=True, text=True, check=True, timeout=120,
                           env=env).stdout.strip()
    port = free_port()
    proc = subprocess.Popen([*COMMAND, "serve", "--port", str(port), "--db", db],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(400):
            try:
                with urllib.request.urlopen(f"{base}/api/lobby") as answer:
                    lobby = json.load(answer)
                break
            except OSError:
                assert proc.poll() is None
                time.sleep(0.05)
        assert [b["name"] for b in lobby["bots"]] == ["alpha"]
        with connect(f"ws://127.0.0.1:{port}/api/bot",
                     additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            assert json.loads(ws.recv(timeout=10)) == {"type": "hello", "account": "alpha",
                                                       "protocol": 1}
            with urllib.request.urlopen(f"{base}/api/lobby") as answer:
                assert json.load(answer)["bots"][0]["online"] is True
            ws.send(json.dumps({"type": "accept", "challenge": 7}))
            error = json.loads(ws.recv(timeout=10))
            assert error == {"type": "error", "message": "no challenge 7", "challenge": 7}
        request = urllib.request.Request(f"{base}/api/challenges", method="POST",
                                         data=b'{"game": "brique"}',
                                         headers={"Authorization": "Bearer wrong"})
        try:
            urllib.request.urlopen(request)
            raise AssertionError("a wrong token was taken")
        except urllib.error.HTTPError as refusal:
            assert refusal.code == 401
            assert json.load(refusal) == {"error": "invalid token"}
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    log = err.decode()
    assert "refused alpha: accept {'challenge': 7}: no challenge 7" in log
    assert "POST /api/challenges: invalid token" in log
    assert "Traceback" not in log
    assert not (tmp_path / "unused").exists()
