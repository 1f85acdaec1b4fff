"""What the tests of the web servers share: a free port on loopback, and the headless
Chromium that the browser tests drive (Debian's, through Playwright)."""

from __future__ import annotations

import socket

#: Debian's Chromium (apt-get install chromium); the browser tests skip without it.
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
