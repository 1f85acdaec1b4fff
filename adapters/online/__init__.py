"""The game server of ``gtpgames serve`` (docs/online.md): accounts, challenges, games with
clocks kept on the server, the bot WebSocket API and the site's HTTP API, stored with
SQLAlchemy."""
