"""Every counted game ends by its ruleset's own bound, never by the runner's abort.

The match runner aborts a game after ``max_decisions`` (`runner.DEFAULT_MAX_DECISIONS`, 50,000): an engine
bug must not hang a server.  An aborted game is never rated, so a seat that could drive a game there would
erase its own loss.  Every ruleset has a game-level option ``decision_limit`` that ends the game at that
many decisions, scored as it stands (`RulesetInfo.decision_bound`); a venue that counts results (the
ladder, `arena match`) refuses options that leave it unset (0) or not below the runner's abort, so no
seat, however it plays, can reach the abort (arena/games/README.md, "Every game ends").
"""

from __future__ import annotations

from typing import Any, Mapping

from arena import games
from arena.games import OptionError
from arena.match.runner import DEFAULT_MAX_DECISIONS


def require_bound(ruleset: str, players: int, options: Mapping[str, Any] | None,
                  max_decisions: int = DEFAULT_MAX_DECISIONS) -> int:
    """The most decisions a ``ruleset`` game of ``players`` under ``options`` can take; `OptionError` (one line)
    if nothing bounds it below ``max_decisions``, the runner's abort."""
    info = games.ruleset_info(ruleset)
    bound = info.decision_bound(players, options)
    if bound is not None and bound < max_decisions:
        return bound
    if info.bound is not None:
        problem = f"at {players} players may take {bound} decisions"
    elif "decision_limit" not in info.options:
        problem = "has no option decision_limit"
    else:
        problem = "with decision_limit=0 has no bound" if bound is None else f"with decision_limit={bound}"
    raise OptionError(
        f"{ruleset} {problem}: a counted game needs decision_limit 1..{max_decisions - 1}, below the runner's "
        f"unrated abort at {max_decisions} decisions, or a seat could stall a game it is losing into that abort"
    )
