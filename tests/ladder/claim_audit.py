"""The seat claims of a shared PostgreSQL ladder, audited from the database after a run (the rows are kept:
``seat_claims``, arena/ladder/store/claims.py), whichever hosts and releases wrote them:

* no bot over its cap: each claim's count within its cap, and, sweeping each bot's claims' intervals on the
  database's clock (a release before a claim at the same instant), never more games at once than the cap of
  the claim that made it so many;
* every seat given back;
* no seat booked twice, one seat per bot in a game, and the games' seats exactly the seats claimed.
"""

from __future__ import annotations


def audit_claims(url: str) -> list[tuple]:
    """Check the claims (above); returns them: (game_id, seat, bot, host, cap, busy, claimed_at, released_at)."""
    import psycopg  # the test modules skip, saying what to install, where it is missing

    with psycopg.connect(url, autocommit=True) as db:
        claims = db.execute("SELECT game_id, seat, bot, host, cap, busy, claimed_at, released_at "
                            "FROM seat_claims").fetchall()
        seated = db.execute("SELECT game_id, seat, bot FROM seats").fetchall()
    assert claims
    assert all(busy <= cap for *_, cap, busy, _claimed, _released in claims), claims
    by_bot: dict[str, list[tuple[float, int, int]]] = {}
    for _game, _seat, bot, _host, cap, _busy, claimed, released in claims:
        assert released is not None and released >= claimed  # every seat was given back
        by_bot.setdefault(bot, []).extend([(claimed, 1, cap), (released, -1, cap)])
    for bot, events in by_bot.items():
        level = 0
        for _at, step, cap in sorted(events, key=lambda e: (e[0], e[1])):
            level += step
            assert step < 0 or level <= cap, f"{bot} was in {level} games at once, over its cap of {cap}"
    seats = {(game, seat): bot for game, seat, bot, *_ in claims}
    assert len(seats) == len(claims)
    per_game: dict[str, list[str]] = {}
    for (game, _seat), bot in sorted(seats.items()):
        per_game.setdefault(game, []).append(bot)
    assert all(len(set(bots)) == len(bots) for bots in per_game.values())
    assert {(game, seat): bot for game, seat, bot in seated} == seats
    return claims
