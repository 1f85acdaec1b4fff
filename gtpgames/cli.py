"""The ``gtpgames`` command line (typer): a thin shell that parses options, finds the game,
builds the session and runs it. Nothing but protocol responses goes to stdout in ``gtp``."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from protocol.args import MAX_MOVE_SECONDS, MAX_PLAYOUTS

if TYPE_CHECKING:
    from engine.search.players import Player

#: The arguments that name a game and set it up, alike in every command that takes them.
GameName = Annotated[str, typer.Argument(help="Game name (see `gtpgames games`).")]
BoardSize = Annotated[int | None, typer.Option(help="Board size, where the game has one.")]
GameOptions = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", help="Game option KEY=VALUE (repeatable)."),
]


class OneLineErrors(TyperGroup):
    """The command group, with every command-line error reported on one line of stderr,
    ``gtpgames: message``, and exit status 2 (in place of typer's boxed error)."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            result = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                  **extra)
        except typer.TyperException as error:
            if not standalone_mode:
                raise
            if type(error).__name__ != "NoArgsIsHelpError":  # the help is shown already
                message = " ".join(error.format_message().split())
                typer.echo(f"gtpgames: {message}", err=True)
            sys.exit(2)
        except typer.Abort:
            if not standalone_mode:
                raise
            typer.echo("gtpgames: aborted", err=True)
            sys.exit(1)
        if standalone_mode:
            sys.exit(result if isinstance(result, int) else 0)
        return result


app = typer.Typer(
    cls=OneLineErrors,
    help="Exact rules engines for Brique, Trisq, Flicker, Brax and Bricka, spoken over GTP.",
    no_args_is_help=True,
    add_completion=False,
)


def _print_version(value: bool) -> None:
    if value:
        from protocol.server import VERSION

        typer.echo(f"gtpgames {VERSION}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True,
                     help="Print the version and exit."),
    ] = False,
) -> None:
    """Exact rules engines for Brique, Trisq, Flicker, Brax and Bricka, spoken over GTP."""


def _fail(message: str) -> None:
    typer.echo(f"gtpgames: {message}", err=True)
    raise typer.Exit(2)


def _option_pairs(items: list[str] | None) -> dict[str, object]:
    """``--option KEY=VALUE`` flags as a dict (exit 2 naming a malformed one)."""
    options: dict[str, object] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep:
            _fail(f"--option expects KEY=VALUE, got {item!r}")
        options[key] = value
    return options


def search_player(
    name: str, seed: int | None, level: int | None = None, threads: int = 1,
    contempt: float | None = None,
) -> Player:
    """The player of ``gtp``: ``name`` (``mcts`` or ``random``), with the search flags
    (ValueError when they are given to a player that does not search)."""
    from engine.search.mcts import MctsPlayer
    from engine.search.registry import make_player

    player = make_player(name, seed)
    if level is None and threads == 1 and contempt is None:
        return player
    if not isinstance(player, MctsPlayer):
        raise ValueError(f"--level, --threads and --contempt need the mcts player, not {name!r}")
    settings = {} if contempt is None else {"contempt": contempt}
    return MctsPlayer(player.rng, level=level, threads=threads, kernel_settings=settings)


@app.command()
def gtp(
    game: GameName,
    size: BoardSize = None,
    option: GameOptions = None,
    player: Annotated[
        str, typer.Option(help="Player used by genmove: mcts (the search bot) or random.")
    ] = "mcts",
    level: Annotated[
        int | None,
        typer.Option(help="Strength level of mcts, 1..7: playouts per move (docs/guide.md)."),
    ] = None,
    threads: Annotated[
        int,
        typer.Option(min=1, max=64,
                     help="Search threads of the compiled kernels (independent trees whose "
                    "root statistics add up); the Python search uses one."),
    ] = 1,
    contempt: Annotated[
        float | None,
        typer.Option(min=0.0, max=0.5,
                     help="What a draw costs the compiled kernels' search: it counts "
                     "1/2 - C for the engine (default: the game's, 0.1 in Brax, else 0)."),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the player's RNG.")] = None,
    notation: Annotated[
        str | None,
        typer.Option(help="Coordinates in and out: gtp (letters skip i) or native."),
    ] = None,
    time: Annotated[
        float | None,
        typer.Option("--time", help=f"Seconds per genmove: more than 0, at most "
                     f"{MAX_MOVE_SECONDS}."),
    ] = None,
    playouts: Annotated[
        int | None,
        typer.Option(min=1, max=MAX_PLAYOUTS,
                     help=f"Playouts per genmove (search players), 1..{MAX_PLAYOUTS}."),
    ] = None,
    swap_as_pass: Annotated[
        bool, typer.Option(help="Write the pie swap as pass on White's first turn (twogtp).")
    ] = False,
    pass_at_end: Annotated[
        bool, typer.Option(help="Accept play X pass after the end of the game (twogtp).")
    ] = False,
    prove: Annotated[
        bool, typer.Option(help="Run the proof-number solver on half of each move's time "
                           "first and play its winning move when it proves one (mcts).")
    ] = False,
) -> None:
    """Run a GTP version 2 engine for GAME on stdin/stdout."""
    from engine.games.core import GameError
    from engine.games.notation import check_notation
    from engine.games.registry import new_game
    from engine.search.players import Limit
    from protocol.server import build_engine

    options = _option_pairs(option)
    if time is not None and not 0 < time <= MAX_MOVE_SECONDS:  # nan fails too
        _fail(f"--time must be more than 0 and at most {MAX_MOVE_SECONDS} seconds, got {time}")
    if size is not None:
        if "size" in options and str(options["size"]) != str(size):
            _fail(f"--size {size} contradicts --option size={options['size']}")
        options["size"] = size
    try:
        the_game = new_game(game, **options)
        chosen = check_notation(notation) if notation else None
        the_player = search_player(player, seed, level, threads, contempt)
        if prove:
            from engine.search.mcts import MctsPlayer

            if not isinstance(the_player, MctsPlayer):
                raise ValueError(f"--prove needs the mcts player, not {player!r}")
            the_player.prove = True
    except (GameError, ValueError) as error:
        _fail(str(error))
        return
    engine, session = build_engine(
        the_game, the_player, chosen, Limit(time=time, playouts=playouts)
    )
    session.swap_as_pass, session.pass_at_end = swap_as_pass, pass_at_end
    from adapters.gogui import gogui_handlers
    from adapters.render.gtp import svg_handlers

    engine.add_commands(gogui_handlers(engine, session, seed))
    engine.add_commands(svg_handlers(session))
    engine.serve(sys.stdin.buffer, sys.stdout.buffer)


@app.command()
def ugi(
    game: GameName,
    option: GameOptions = None,
    player: Annotated[str, typer.Option(help="Player used by go: mcts or random.")] = "mcts",
    seed: Annotated[int | None, typer.Option(help="Seed of the player's RNG.")] = None,
    notation: Annotated[
        str, typer.Option(help="Move tokens: native (the game's own letters) or gtp.")
    ] = "native",
) -> None:
    """Run a UGI engine for GAME on stdin/stdout (for cutegames; docs/ugi.md)."""
    from engine.games.core import GameError
    from engine.games.notation import check_notation
    from engine.search.registry import make_player
    from protocol.ugi import UgiEngine, UgiError

    options = _option_pairs(option)
    try:
        engine = UgiEngine(
            game,
            options,
            make_player(player, seed),
            check_notation(notation),
            make_player=lambda name: make_player(name, seed),
        )
    except (GameError, UgiError, ValueError) as error:
        _fail(str(error))
        return
    engine.serve(sys.stdin)


@app.command()
def games() -> None:
    """List the games with their options and defaults."""
    from engine.games.registry import game_summaries

    for name, title, options in game_summaries():
        typer.echo(f"{name:8} {title:8} {options}")


@app.command()
def match(
    game: GameName,
    engine: Annotated[list[str], typer.Option(
        "--engine", "-e", help="name=NAME cmd='COMMAND' [dir=DIR] [stderr=FILE] (repeatable).")],
    option: GameOptions = None,
    games: Annotated[int, typer.Option(help="Games per pairing (colours alternate).")] = 2,
    format: Annotated[str, typer.Option(help="round-robin or gauntlet.")] = "round-robin",
    openings: Annotated[Path | None, typer.Option(help="File of openings, one a line.")] = None,
    tc: Annotated[str | None, typer.Option(
        help="Time control: MAIN, MAIN+PERIOD/STONES or MAIN+PERIODxCOUNT (seconds).")] = None,
    move_timeout: Annotated[float, typer.Option(
        help="Seconds per genmove without --tc.")] = 60.0,
    jobs: Annotated[int, typer.Option(help="Games played in parallel.")] = 1,
    sprt: Annotated[str | None, typer.Option(help="elo0,elo1[,alpha[,beta]].")] = None,
    record: Annotated[Path | None, typer.Option(
        help="JSON-lines record, resumed (default: match-GAME-HASH.jsonl).")] = None,
    sgf_dir: Annotated[Path | None, typer.Option(help="Write SGF records here.")] = None,
    max_moves: Annotated[int, typer.Option(help="Adjudicate a draw after N moves.")] = 2000,
    notation: Annotated[str | None, typer.Option(help="gtp or native.")] = None,
    cluster: Annotated[str | None, typer.Option(
        help="Play the games on a Ray cluster: auto, HOST:PORT, ray://HOST:10001 or local "
             "(needs gtpgames[cluster]).")] = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
    pictures: Annotated[bool, typer.Option(
        help="Write an SVG picture of each final position (beside the SGF).")] = False,
) -> None:
    """Play a match between GTP engines, with the rules core as referee."""
    from adapters import match_cli

    try:
        config = match_cli.build_config(
            game, engine, option or [], games, format, openings, tc, move_timeout, jobs, sprt,
            record, sgf_dir, max_moves, notation, pictures, cluster)
        code = match_cli.run(config, quiet)
    except (ValueError, OSError) as error:
        _fail(str(error))
        return
    raise typer.Exit(code)


serve_app = typer.Typer(
    cls=OneLineErrors, invoke_without_command=True, add_completion=False,
    help="Serve the game site (docs/online.md) and the single-user board (docs/web.md).")
app.add_typer(serve_app, name="serve")

DbOption = Annotated[str | None, typer.Option(
    "--db", help="Database: sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DATABASE "
    "(default: online.sqlite in the user's data directory).")]


def _db_url(db: str | None) -> str:
    from adapters.online.store import default_url

    return db if db is not None else default_url()


@serve_app.callback()
def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(
        help="Address to listen on; anything but 127.0.0.1 opens the app to the network.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port.")] = 8000,
    max_games: Annotated[int, typer.Option(
        min=1, max=256, help="Games open at once (one engine process each).")] = 4,
    max_think: Annotated[float, typer.Option(
        min=0.01, max=600.0, help="Longest thinking time of the engine per move, seconds.")
    ] = 10.0,
    idle: Annotated[float, typer.Option(
        min=1.0, help="Seconds a silent page keeps its game before it is closed.")] = 1800.0,
    db: DbOption = None,
    secure_cookies: Annotated[bool, typer.Option(
        "--secure-cookies", help="Send the sign-in cookie over HTTPS only (behind a TLS "
        "proxy).")] = False,
    max_message: Annotated[int, typer.Option(
        min=256, max=1 << 24, help="Bytes of one JSON message or request body.")] = 16384,
    max_challenges: Annotated[int, typer.Option(
        min=1, max=1000, help="Open challenges per account.")] = 5,
    max_person_games: Annotated[int, typer.Option(
        min=1, max=1000, help="Games in progress per person.")] = 5,
    max_bot_games: Annotated[int, typer.Option(
        min=1, max=10000, help="Games in progress per bot.")] = 32,
    rate: Annotated[float, typer.Option(
        min=0.1, max=10000.0, help="Messages per second per connection (bursts of twice "
        "that pass).")] = 20.0,
) -> None:
    """Serve the game site and the single-user board (at /analysis)."""
    if ctx.invoked_subcommand is not None:
        return
    from adapters.online.app import serve as run_server
    from adapters.online.play import Limits
    from adapters.web.room import Caps

    url = _db_url(db)
    if host not in ("127.0.0.1", "localhost", "::1"):
        typer.echo(f"gtpgames: serving on {host}: anyone who can reach it can open games",
                   err=True)
    typer.echo(f"gtpgames: serving on http://{host}:{port}/ (Ctrl-C to stop)", err=True)
    limits = Limits(max_message=max_message, max_challenges=max_challenges,
                    max_person_games=max_person_games, max_bot_games=max_bot_games,
                    rate=rate)
    from sqlalchemy.exc import SQLAlchemyError

    try:
        run_server(url, host, port, limits, secure_cookies,
                   Caps(max_games=max_games, max_think=max_think), idle)
    except ValueError as error:
        _fail(str(error))
    except SQLAlchemyError as error:
        _fail(f"--db: {' '.join(str(getattr(error, 'orig', None) or error).split())}")


@serve_app.command("add-bot")
def add_bot(
    name: Annotated[str, typer.Argument(help="The bot's name (2 to 20 letters, digits, _, -).")],
    db: DbOption = None,
) -> None:
    """Create a bot account and print its token (shown this once)."""
    from sqlalchemy.exc import SQLAlchemyError

    from adapters.online.app import add_bot as create_bot

    try:
        token = create_bot(_db_url(db), name)
    except ValueError as error:
        _fail(str(error))
        return
    except SQLAlchemyError as error:
        _fail(f"--db: {' '.join(str(getattr(error, 'orig', None) or error).split())}")
        return
    typer.echo(token)


@app.command()
def render(
    game: GameName,
    size: BoardSize = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", help="Game option KEY=VALUE (repeatable).")] = None,
    moves: Annotated[str | None, typer.Option(
        help="Moves to play from the start, space-separated tokens.")] = None,
    position: Annotated[str | None, typer.Option(
        help="A position string (docs/ugi.md) instead of --moves.")] = None,
    notation: Annotated[str | None, typer.Option(
        help="Coordinates: gtp (letters skip i) or native (default: the game's).")] = None,
    legal: Annotated[bool, typer.Option(help="Mark the legal moves.")] = False,
    width: Annotated[int | None, typer.Option(min=16, max=8192,
                                              help="Width in pixels.")] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Write FILE.svg or FILE.png (default: SVG on stdout).")] = None,
) -> None:
    """Draw a position of GAME with its true board, as SVG (or PNG with -o FILE.png)."""
    from adapters.render import render_png, render_svg
    from engine.games.core import GameError
    from engine.games.notation import check_notation
    from engine.games.registry import game_class, new_game

    options = _option_pairs(option)
    if size is not None:
        options["size"] = size
    if moves is not None and position is not None:
        _fail("give --moves or --position, not both")
    suffix = output.suffix.lower() if output is not None else ".svg"
    if suffix not in (".svg", ".png"):
        _fail(f"--output {str(output)!r}: expected a file name ending in .svg or .png")
    try:
        if position is not None:
            the_game = game_class(game).from_position_string(position, **options)
        else:
            the_game = new_game(game, **options)
        chosen = check_notation(notation) if notation else the_game.DEFAULT_NOTATION
        for token in (moves or "").split():
            the_game.play_text(token, chosen)
        if output is None:
            typer.echo(render_svg(the_game, notation=chosen, legal=legal, width=width))
        elif suffix == ".png":
            render_png(the_game, output, notation=chosen, legal=legal, width=width)
        else:
            output.write_text(
                render_svg(the_game, notation=chosen, legal=legal, width=width) + "\n",
                encoding="utf-8")
    except OSError as error:
        _fail(f"cannot write {str(output)!r}: {error.strerror or error}")
    except (GameError, ValueError, RuntimeError) as error:
        _fail(str(error))


@app.command()
def warmup(
    game: Annotated[
        list[str] | None, typer.Argument(help="Games to compile (default: every kernel).")
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(min=1, help="Kernels compiled at once, each in a process of its own "
                     "(default: one per core)."),
    ] = None,
    solver: Annotated[
        bool, typer.Option("--solver", help="Also compile each game's solver (gtpgames solve).")
    ] = False,
) -> None:
    """Compile the numba search kernels ahead of time (into the on-disk cache)."""
    from engine.search import kernels, solve

    try:
        seconds = kernels.warmup(game, jobs or kernels.cores(), solve.warm if solver else None)
    except ValueError as error:
        _fail(str(error))
        return
    for name, took in seconds.items():
        typer.echo(f"{name}: ready in {took:.1f} s")
    typer.echo(f"cache: {kernels.cache_dir()}")


@app.command()
def solve(
    game: GameName,
    size: BoardSize = None,
    option: GameOptions = None,
    moves: Annotated[
        str | None, typer.Option(help="Moves played before the position to solve (gtp).")
    ] = None,
    position: Annotated[
        str | None, typer.Option(help="The position to solve, as a position string.")
    ] = None,
    time: Annotated[
        float | None, typer.Option("--time", min=0.0, help="Seconds at most.")
    ] = None,
    memory: Annotated[
        float, typer.Option(min=1.0, help="Megabytes for the table and the search stack.")
    ] = 256.0,
    threads: Annotated[
        int, typer.Option(min=1, max=64, help="Search threads, sharing the table.")
    ] = 1,
    all_moves: Annotated[
        bool, typer.Option("--all", help="List every winning move of a won position.")
    ] = False,
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="Table file: loaded if it exists, saved when the solve stops."),
    ] = None,
) -> None:
    """Solve a position: its value for the side to move (win, loss or draw) by a
    depth-first proof-number search (docs/guide.md)."""
    from engine.games.core import GameError
    from engine.games.registry import game_class, new_game

    options = _option_pairs(option)
    if size is not None:
        options["size"] = size
    if moves is not None and position is not None:
        _fail("give --moves or --position, not both")
    try:
        the_game = (game_class(game).from_position_string(position, **options)
                    if position is not None else new_game(game, **options))
        for token in (moves or "").split():
            the_game.play_text(token)
        if the_game.outcome() is not None:
            raise ValueError("the game is over: nothing to solve")
        from engine.search.solve import Solver

        solver = Solver(the_game, memory_mb=memory, threads=threads)
        if checkpoint is not None and checkpoint.exists():
            read = solver.load(checkpoint)
            typer.echo(f"gtpgames: {read:,} table entries read from {checkpoint}", err=True)
    except (GameError, ValueError, OSError) as error:
        _fail(str(error))
        return
    try:
        found = solver.solve(the_game, seconds=time, all_moves=all_moves)
    finally:
        if checkpoint is not None:
            try:
                solver.save(checkpoint)
            except OSError as error:
                _fail(f"cannot write the checkpoint: {error}")
    side = the_game.player_name(the_game.to_move)
    typer.echo(f"{side} to move: {found.value}")
    if found.bound is not None:
        typer.echo(f"bound: {found.bound}")
    if found.source is not None:
        typer.echo(f"from: {found.source}")
    if found.plies is not None:
        if found.value != "draw":
            typer.echo(f"plies to the deciding capture: {found.plies}")
    typer.echo(f"nodes: {found.nodes}")
    typer.echo(f"time: {found.seconds:.2f} s")
    typer.echo(f"table: {solver.used()} of {solver.entries} entries "
               f"({solver.memory_bytes() / 2**20:.1f} MB with the stack)")
    if found.move is not None and found.winning is None:
        typer.echo(f"winning move: {found.move}")
    if found.winning is not None:
        typer.echo("winning moves: " + (" ".join(found.winning) or "(none)"))
        if found.undecided:
            typer.echo("undecided: " + " ".join(found.undecided))


def main() -> None:
    app()


@app.command(context_settings={"allow_interspersed_args": False})
def bot(
    command: Annotated[list[str], typer.Argument(
        metavar="ENGINE COMMAND...",
        help="The engine's command line, after -- ({game} is replaced by the game's name).",
        show_default=False)],
    server: Annotated[str, typer.Option(help="The server, http://HOST:PORT or https://...")],
    token: Annotated[str, typer.Option(
        envvar="GTPGAMES_TOKEN", help="The bot account's token (gtpgames serve add-bot).")],
    games: Annotated[str | None, typer.Option(
        help="The games it plays, separated by commas (default: all).")] = None,
    accept: Annotated[str, typer.Option(
        help="The challenges it takes: any, rated, or from:NAME.")] = "any",
    max_games: Annotated[int, typer.Option(
        help="Games played at once; more challenges are declined.")] = 4,
) -> None:
    """Connect a GTP engine to a game server as a bot: take challenges and play them, one
    engine process per game (docs/online.md)."""
    from adapters.online import bridge

    try:
        policy = bridge.Policy.parse(games, accept, max_games)
        bridge.run(server, token, command, policy)
    except (ValueError, bridge.BridgeError) as error:
        _fail(str(error))


@app.command()
def challenge(
    opponent: Annotated[str, typer.Argument(help="The account challenged.")],
    server: Annotated[str, typer.Option(help="The server, http://HOST:PORT or https://...")],
    token: Annotated[str, typer.Option(
        envvar="GTPGAMES_TOKEN", help="The token of the account that plays the game.")],
    game: Annotated[str, typer.Option(help="Game name (see `gtpgames games`).")],
    option: GameOptions = None,
    color: Annotated[str, typer.Option(help="Our side: b, w or random.")] = "random",
    time: Annotated[str, typer.Option(
        "--time", help="Time control MIN+INC: minutes, and seconds added per move.")] = "5+0",
    rated: Annotated[bool, typer.Option(help="A rated game.")] = False,
    wait: Annotated[float, typer.Option(
        min=0.0, help="Seconds to wait for the challenge to be accepted.")] = 60.0,
) -> None:
    """Challenge OPPONENT to a game on a game server, wait for its end and print its result
    on one line (exit status 0; 1 when not accepted; 2 on an error)."""
    from adapters.online import challenge as scripted
    from adapters.online.client import ApiError, Client, ServerUnreachable, parse_time

    options = {key: str(value) for key, value in _option_pairs(option).items()}
    try:
        sent = scripted.build(opponent, game, options, color.lower(), parse_time(time), rated)
        client = Client(server, token)
        outcome = scripted.play(
            client, sent, wait, notice=lambda text: typer.echo(f"gtpgames: {text}", err=True))
    except (ValueError, ApiError, ServerUnreachable) as error:
        _fail(str(error))
        return
    typer.echo(outcome.line)
    raise typer.Exit(outcome.status)
