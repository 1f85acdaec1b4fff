"""A tiny GTP engine for the match-runner tests: plays uniformly random legal moves of one
game (through the rules core) and misbehaves on purpose when a script asks it to.

It knows only the standard commands (not gtpgames-game), so the runner must configure it
with boardsize. Options: --game NAME, --size N, --seed S, --log FILE (every command line
received is appended there), --delay SECONDS (before each genmove answer), --upper (moves
answered in upper case), --twice COMMAND (answers that command twice, in one write),
--reseed (the RNG restarts from --seed at every clear_board: each game then depends only on
its colours and opening, not on the games this process played before).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from engine.games.registry import new_game

#: Called with (n, game) on the engine's n-th genmove of a game (1-based); returns the text of
#: the response (without '= ') or None to answer normally.
Hook = Callable[[int, object], str | None]


def main(hook: Hook | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="brique")
    parser.add_argument("--size", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", default=None)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--upper", action="store_true")
    parser.add_argument("--twice", default=None)
    parser.add_argument("--reseed", action="store_true")
    args = parser.parse_args()
    options: dict[str, object] = {} if args.size is None else {"size": args.size}
    game = new_game(args.game, **options)
    rng = random.Random(args.seed)
    count = 0
    known = {"protocol_version", "name", "version", "known_command", "list_commands",
             "boardsize", "clear_board", "komi", "play", "genmove", "quit", "time_settings",
             "time_left"}

    def reply(text: str, ok: bool = True) -> None:
        response = ("= " if ok else "? ") + text + "\n\n"
        sys.stdout.write(response * (2 if name == args.twice else 1))
        sys.stdout.flush()

    for line in sys.stdin:
        if args.log:
            with open(args.log, "a", encoding="utf-8") as log:
                log.write(line)
        words = line.split()
        if not words:
            continue
        name, rest = words[0], words[1:]
        if name == "quit":
            reply("")
            return
        if name == "protocol_version":
            reply("2")
        elif name == "name":
            reply("tiny")
        elif name == "version":
            reply("1")
        elif name == "known_command":
            reply("true" if rest and rest[0] in known else "false")
        elif name == "list_commands":
            reply("\n".join(sorted(known)))
        elif name == "boardsize":
            options = {} if game.name == "bricka" else {"size": int(rest[0])}
            game = new_game(args.game, **options)
            count = 0
            reply("")
        elif name == "clear_board":
            game = game.new_game()
            count = 0
            if args.reseed:
                rng = random.Random(args.seed)
            reply("")
        elif name in ("komi", "time_settings", "time_left"):
            reply("")
        elif name == "play":
            try:
                game.play_text(rest[1], game.DEFAULT_NOTATION)
                reply("")
            except ValueError as error:
                reply(f"illegal move: {error}", ok=False)
        elif name == "genmove":
            count += 1
            answer = hook(count, game) if hook is not None else None
            if answer is None:
                if game.is_over():
                    answer = "resign"
                else:
                    move = game.random_move(rng)
                    answer = game.format_move(move, game.DEFAULT_NOTATION)
                    game.play(move)
                    if args.upper:
                        answer = answer.upper()
            if args.delay:
                time.sleep(args.delay)
            reply(answer)
        else:
            reply("unknown command", ok=False)


if __name__ == "__main__":
    main()
