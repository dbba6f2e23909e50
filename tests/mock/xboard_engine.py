#!/usr/bin/env python3
"""A small xboard (CECP v2) engine for sparring's tests, on python-chess.

It plays legal moves chosen deterministically (a mate in one when there is one, else a capture,
else a move picked by a seeded hash of the position), prints one thinking line per move, and
writes every command it receives to --log FILE. Flags make it misbehave on purpose:

  --san            declare san=1 and write its moves in SAN
  --usermove       declare usermove=1 (moves arrive as `usermove MOVE`)
  --no-ping        declare ping=0
  --no-setboard    declare setboard=0 (positions arrive through `edit`)
  --nps            declare nps=1
  --fischerandom   declare variants="normal,fischerandom"
  --v1             answer nothing to protover (a protocol 1 engine)
  --done0          send done=0 first and done=1 a moment later
  --illegal-at N   its Nth move (1-based) is an illegal one
  --hang-at N      never answer its Nth go
  --resign-at N    resign instead of its Nth move
  --claim-at N     claim a win for itself instead of its Nth move
  --reuse0         declare reuse=0 (a fresh process for every game)
  --name-feature   declare name=1 (it is told its opponent with `computer` and `name`)
  --egt            declare egt="syzygy" (it is told the run's tables with `egtpath`)
"""

import sys
import time

import chess


def main():
    args = sys.argv[1:]

    def flag(name):
        return name in args

    def number(name):
        if name in args:
            return int(args[args.index(name) + 1])
        return None

    log = open(args[args.index("--log") + 1], "a") if "--log" in args else None
    board = chess.Board()
    force = False
    my_color = chess.BLACK
    moves_made = 0
    editing = False
    edit_black = False

    def say(text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def choose():
        legal = sorted(board.legal_moves, key=lambda m: m.uci())
        for m in legal:
            board.push(m)
            mate = board.is_checkmate()
            board.pop()
            if mate:
                return m
        captures = [m for m in legal if board.is_capture(m)]
        pool = captures or legal
        key = sum(ord(c) for c in board.board_fen()) + 7 * board.ply()
        return pool[key % len(pool)]

    def think_and_move():
        nonlocal moves_made
        moves_made += 1
        if number("--hang-at") == moves_made:
            return
        if number("--resign-at") == moves_made:
            say("resign")
            return
        if number("--claim-at") == moves_made:
            say(("1-0" if board.turn == chess.WHITE else "0-1") + " {I say I won}")
            return
        if number("--illegal-at") == moves_made:
            say("move a1a1")
            return
        m = choose()
        text = board.san(m) if flag("--san") else board.uci(m)
        pv = text
        say("%d %d %d %d %s" % (3, 17 + moves_made, 5, 1000 + moves_made, pv))
        board.push(m)
        say("move " + text)

    def read_move(text):
        try:
            return board.parse_uci(text)
        except ValueError:
            return board.parse_san(text)

    for line in sys.stdin:
        line = line.strip()
        if log:
            log.write(line + "\n")
            log.flush()
        if not line:
            continue
        words = line.split()
        cmd = words[0]
        if editing:
            # Inside `edit`: piece placement until `.`.
            if cmd == ".":
                editing = False
                board.castling_rights = board.clean_castling_rights()
            elif cmd == "#":
                board.clear_board()
            elif cmd == "c":
                edit_black = True
            else:
                color = chess.BLACK if edit_black else chess.WHITE
                kind = chess.PIECE_SYMBOLS.index(cmd[0].lower())
                board.set_piece_at(chess.parse_square(cmd[1:3]), chess.Piece(kind, color))
            continue
        if cmd == "protover":
            if flag("--v1"):
                continue
            features = ['myname="MockXboard"', "setboard=%d" % (0 if flag("--no-setboard") else 1)]
            features.append("ping=%d" % (0 if flag("--no-ping") else 1))
            features.append("sigint=0 sigterm=0 colors=0")
            features.append("reuse=%d" % (0 if flag("--reuse0") else 1))
            if flag("--name-feature"):
                features.append("name=1")
            if flag("--egt"):
                features.append('egt="syzygy"')
            if flag("--san"):
                features.append("san=1")
            if flag("--usermove"):
                features.append("usermove=1")
            if flag("--nps"):
                features.append("nps=1")
            if flag("--fischerandom"):
                features.append('variants="normal,fischerandom"')
            features.append('option="Aggression -spin 5 0 10"')
            if flag("--done0"):
                say("feature done=0")
                say("feature " + " ".join(features))
                time.sleep(0.3)
                say("feature done=1")
            else:
                say("feature " + " ".join(features) + " done=1")
        elif cmd == "new":
            board = chess.Board()
            moves_made = 0
            force = False
            my_color = chess.BLACK
        elif cmd == "variant":
            board = chess.Board(chess960=True) if words[1] == "fischerandom" else chess.Board()
        elif cmd == "force":
            force = True
        elif cmd == "setboard":
            board.set_fen(" ".join(words[1:]))
        elif cmd == "edit":
            editing = True
            edit_black = False
        elif cmd == "ping":
            say("pong " + words[1])
        elif cmd == "go":
            force = False
            my_color = board.turn
            think_and_move()
        elif cmd == "quit":
            return
        elif cmd in ("xboard", "accepted", "rejected", "time", "otim", "level", "st", "sd",
                     "nps", "post", "nopost", "easy", "hard", "computer", "name", "result",
                     "random", "memory", "cores", "option", "?", "egtpath"):
            continue
        else:
            text = words[1] if cmd == "usermove" else cmd
            try:
                board.push(read_move(text))
            except ValueError:
                say("Illegal move: " + text)
                continue
            if not force and board.turn == my_color:
                think_and_move()


if __name__ == "__main__":
    main()
