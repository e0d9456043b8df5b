"""The searcher: determinized Monte-Carlo search (PIMC) with the tactician as its rollout policy.

At each decision with more than one legal action it samples worlds consistent with what it sees,
tries every legal action in each, lets every seat play on as the tactician would (to the end of
the hand, or `--depth` decisions), and keeps the action with the best mean outcome.  The budget
is a count (`--worlds`, `--depth`), not wall time, so the bot is equally strong on every
machine; `--worlds 0` plays the tactician.  See `pimc.py` for the search itself.  Over the wire it
answers at a steady pace (`SearchBot.steady`), so that its timing does not tell which decisions were forced.

Needs the arena package (`pip install -e .` from the repository) besides the SDK.
"""

import argparse
import functools
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules, wherever it is run from

from deal_weights import DealPosterior, DealSearcher  # noqa: E402
from field_leaf import FieldLeafValued  # noqa: E402
from inference import CardTracker, tracks  # noqa: E402
from leaf_value import LeafValued  # noqa: E402
from own_plan import OwnPlan  # noqa: E402
from own_tree import OwnTree  # noqa: E402
from pimc import Budget, Searcher  # noqa: E402
from posterior import HandPosterior, PosteriorSearcher  # noqa: E402
from second_step import SecondStep, SecondStepSearcher  # noqa: E402
from play_model import PlayModel  # noqa: E402
from tactician import Tactician  # noqa: E402

from arena.games.worlds import Tracker  # noqa: E402
from mau_arena_sdk import Bot, Facts, run  # noqa: E402

#: Worlds per decision and rollout cap: about 100 ms a decision on the reference machine
#: (scripts/searcher_timing.py).  Shorter hands (Mau-Mau) afford more worlds; Mose and DD MAU
#: rollouts are cut short (their engines are 3-8 times slower) and scored by the cards held.  Mose and
#: DD MAU were raised from 10 and 16 worlds when their engines got about three times faster (2026-11-27:
#: 24 worlds in Mose and 40 in DD MAU measured 78-110 and 84-88 ms a decision, from 37.5 and 54 ms before).
#: Online Mau-Mau keeps the tactician's choice unless another action gains more than one standard
#: error over it, world by world: with 9 worlds of 4-seat rollouts cut at 60 decisions the noise was
#: enough to make plain "best mean" lose (-126 Elo over 148 games; +4.6 over 400 with confidence 1).
#: 20 worlds (72 ms a decision, 2026-11-27) with the history sampler: +37.5 over 400 games (9: +32.8).
#: Rollouts by the table-driven tactician (the same choices, 1.3-1.4 times faster) and void rejection judged on a
#: deal before its state is built let Moumou take 40 worlds (from 30), Mau-Mau 56 (from 42) and Online
#: Mau-Mau 28 with the rejection of up to 8 deals (from 20 without) in about the same CPU time a
#: decision (2026-11-27, README: Mau-Mau +50.7 ± 29.3 over 400 games, from +41.9 ± 29.6 with 42).
#: Online Mau-Mau, 28 worlds: +44.8 (+24.6 .. +65.4) over 400 games (seeds 5000-5100) and +71.6 (+47.5 ..
#: +96.5) over 400 fresh ones (100 deals, seeds 12000-12099: `arena match ... --seed 12000 --games 200` and
#: `--seed 12050 --games 200` under `nice -n 19`, combined by `scripts/field_elo.py`; README) with main's
#: code at ad71bc1 (+40.4 in a second run on the same deals); with void tells that skip the accusation turns
#: +50.7 (+29.7 .. +72.1) on the same deals, -5.2 Elo (-32.1 .. +22.3) against the mean of main's two runs
#: deal by deal: inside the noise (the two runs of one code differed by 31).  All these against a tactician
#: that played its first legal action in a turn with an accusation window open; it plays those turns by its
#: scoring now, and the tells no longer skip them (README: the figure against it).
#: Mau-Mau 46 worlds since the posterior's chain moves 3 sweeps between hands (`POSTERIOR_SWEEPS`, the same CPU),
#: and a finished game valued by its placement alone (`edge` 0: one hand, and the arena counts placements):
#: +54.3 (+23.8 .. +85.7) over 400 games (seeds 13000-13199), main's code +33.1 on the same deals, inside the noise;
#: +47.2 over 400 more (13200-13399), +50.7 ± 20.9 over all 800 (against the tactician before its accusation-turn
#: fix, which 2-seat Mau-Mau has no turn of).
#: Online Mau-Mau 33 worlds (from 28) since the tactician's scoring and the rollout loop got cheaper (the same
#: choices and values, `scripts/searcher_digest.py`): 33 worlds take about the CPU time 28 took before
#: (`scripts/searcher_timing.py --rulesets maumau-online --same-games`, 2026-11-27): +31.1 (+8.4 .. +54.0) over 400
#: games on seeds 12000-12099 against the fixed tactician (28 worlds: +41.3 there), inside the noise (README).
#: Online Mau-Mau races the worlds since strength8 (`Budget.prune` 2 with 45 worlds, about the CPU of 33 flat): on seeds
#: 12000-12099 +48.4 and +51.3 (91 deals) in two runs, +17.3 and +29.9 Elo deal by deal over the 33-world flat search
#: (README).  Racing (`--prune`; `pimc.Searcher.race`) is off elsewhere: on 382 positions of Online
#: Mau-Mau (`scripts/regret_screen.py`, 2026-11-27) it kept the regret (+0.1 ± 1.3 thousandths) with 19% fewer rollouts
#: at 33 worlds, and with 45 worlds (4% more rollouts) moved it by -1.1 ± 1.3, about +8 Elo, inside the noise; in
#: 2-seat Mau-Mau (500 positions) +1.2 ± 2.0 at 46 worlds and +0.3 ± 3.6 at 60 (README, Session 8).
#: Online Mau-Mau 150 worlds raced since Session 14, its rollouts cut at 30 decisions by `FIELD_LEAF` (about 1.75 times
#: the CPU of the 45 worlds before): +65.1 (+54.8 .. +75.5) over 1,600 games (400 fresh deals, seeds 19000-19399),
#: +22.9 Elo (+10.5 .. +35.5) deal by deal over the 45 worlds cut at 60 on the same deals (README).
DEFAULT_BUDGETS = {"moumou": Budget(worlds=40, depth=60, tries=8), "maumau": Budget(worlds=46, depth=60, tries=8, edge=0.0),
                   "maumau-online": Budget(worlds=150, depth=60, confidence=1.0, tries=8, prune=2.0), "mose": Budget(worlds=24, depth=12),
                   "ddmau": Budget(worlds=40, depth=16)}
SHEDDING_BUDGET = Budget(worlds=20, depth=60)  # every other (shedding) ruleset
#: The share of a turn's time limit (`Turn.time_left_ms`, from when `act` starts) after which the search decides on the
#: worlds it has searched (`pimc.Searcher.stop_at`).  The budgets above are counts, the same on every machine, and with
#: the limit of the README's measurements (`--move-ms 60000`, which the `scripts/searcher_*.py` and `regret_screen.py`
#: turns carry too) this never acts; on a busy ladder host with the arena's default 1,000 ms it keeps the slow
#: decisions from a strike.  (`arena serve --demo --game maumau-online`,
#: 2026-11-29: with the 150-world default and no guard the searcher, four games at once in one process beside the
#: other demo bots on 2 cores, timed out 30 times in 30 games; the 45 worlds before it, none.)
TIME_SHARE = 0.5


#: Rulesets whose worlds come from the engine's history-aware sampler (`arena.games.worlds.Tracker`: the
#: pile card by card, the stock after a reshuffle made of the reshuffled cards), judged by the card
#: tracker's voids (`Budget.tries`; Mose and DD MAU have no card tracker: their worlds are the sampler's,
#: a Mose pile taken pinned to the taker's hand); the other shedding rulesets have the card tracker move
#: the cards of plain worlds.
ENGINE_HISTORY = frozenset({"moumou", "maumau", "maumau-online", "mose", "ddmau"})


#: Rulesets whose card tracker also reads the opponents' choice of card as the tactician's (`inference.PlayTell`:
#: a hand from which the tactician would have played another card is judged wrong) and judges the deals by
#: the suit named after a wild even without a void (`--play-model` reads them in any shedding ruleset).
#: Not Online Mau-Mau: even with tells that follow the direction of play and skipped the accusation turns (the
#: real deal ruled out at none of 224 screened positions, from 15%), `scripts/regret_screen.py` found the
#: regret -1.7 ± 1.9 thousandths, inside the noise, and on the same 100 deals (seeds 12000-12099, 400 games)
#: the searcher scored +53.4 with them, -2.5 Elo (-28.0 .. +23.6) against two runs of main's code (ad71bc1).
PLAY_MODEL = frozenset({"maumau"})


#: Rulesets (2 seats only) whose worlds give the opponent a hand drawn from `posterior.HandPosterior`: every
#: card it held with the time it came, judged by each of its choices as the tactician's.
POSTERIOR = frozenset({"maumau"})
#: Chain moves per slot between two hands drawn from the posterior (`HandPosterior.sweeps`).  With 1, two
#: hands drawn one after the other shared 62% of their cards (independent draws 25%: 81 decisions of seeds
#: 9000-9011), so 56 worlds were worth far fewer; with 3 the chain costs about 14 ms more a decision, paid for
#: by 46 worlds instead of 56 (README: the 2-seat `maumau` rows).
POSTERIOR_SWEEPS = 3
#: The options under which `posterior.py` reads the opponent's choices right (the defaults): a Jack on a
#: Jack, no stacked 7s or 8s, one card a play, a failed Ace follow that ends the turn.
#: Rulesets (those of `POSTERIOR`) whose search also searches its own next decision across the worlds
#: (`second_step.SecondStepSearcher`: a second step of policy improvement; `--second-step` anywhere `POSTERIOR` holds).
#: None by default: in 2-seat `maumau` it scored +65.0 (+33.9 .. +97.2) over 400 games (seeds 13000-13199), +0.03 ±
#: 0.11 wins a pair against the flat default's run on the same deals, and +0.05 ± 0.09 on 100 more in-process
#: (`scripts/searcher_ceiling.py --seeds 20000:20100`): about +15 Elo, inside the noise, for about 1.25 times the CPU.
SECOND_STEP = frozenset()
#: The second step's pass-2 rollouts a decision (`second_step.SecondStep.extra`) per ruleset, where it is on
#: (`--step-extra N`); elsewhere `SecondStep`'s own 120.  None by default: with 100 worlds and 260 (87 ms a decision,
#: the issue's budget) it scored +90.6 (+59.9 .. +122.7) in-process on seeds 13000-13199 (400 games), +0.020 ± 0.105
#: pair points deal by deal over the default there, about +7 Elo, inside the noise (README, Session 10).
SECOND_STEP_EXTRA = {}
#: Rulesets whose worlds give every opponent a hand drawn from `deal_weights.DealPosterior`: whole deals weighted
#: by the likelihood of each opponent's past choices under the (softened) tactician, until the first reshuffle
#: (`--deals` anywhere the options are `DEAL_OPTIONS`').  None by default: on 400 positions of Online Mau-Mau
#: (`scripts/regret_screen.py`, 2026-11-28) it placed 15.2% of the opponents' hidden cards right against the
#: default's 12.4% but moved the regret by +0.44 ± 2.35 thousandths (45 worlds; epsilon 0.01: +1.30 ± 1.96; 36
#: worlds, about the default's CPU: +1.18 ± 2.40; a longer chain, 16.9% right: +2.58 ± 2.53), for about 1.17 times
#: the CPU a decision (README, Session 9).
DEAL_WEIGHTS = frozenset()
#: `DealPosterior`'s likelihood of a choice the tactician would not have made, chain moves between two hands drawn
#: and after new events.
DEAL_EPSILON, DEAL_MOVES, DEAL_SETTLE = 0.05, 12, 300
#: The options under which `deal_weights.py` reads the opponents' choices right: one draw a turn, one card a play.
DEAL_OPTIONS = {"max_draws_per_turn": "1", "quick": False, "blind": False}
#: Rulesets (those of `POSTERIOR`) whose rollouts are cut at this many decisions and valued by `leaf_value.win_chance`
#: (`--leaf N`; 0 plays every rollout to the end of the hand).  A rollout's end is one bit, won or lost, and most
#: of its spread is the luck of the later draws: on 100 positions (2026-11-28, 150 worlds each, the same worlds) the
#: spread, world by world, of the difference between the best and the second action fell from 0.26-0.30 to 0.10
#: with the cut at 12 decisions and to 0.05 at 6, while the choice stayed the full rollouts' at 90% (12) and 78%
#: (6) of the positions: a biased but far less noisy value.  None by default: cut at 12 with 50 worlds (11% less CPU
#: than the default) it scored +72.2 (+51.4 .. +93.7) over 800 games (seeds 13000-13399), and the default beside it on
#: the same deals +63.2: +0.025 ± 0.069 pair points deal by deal, about +9 Elo, inside the noise (README, Session 9).
LEAF = {}
#: Rulesets of 3 or more seats whose rollouts may be cut at N decisions and valued by `field_leaf.field_value` (the fitted
#: chance of finishing ahead of each other seat; `--leaf N` there), and where that is the default (`FIELD_LEAF`, else
#: `pimc.evaluate`'s count of cards at the budget's depth).  The model is fitted on Online Mau-Mau only.  On 1,200 positions
#: (`scripts/regret_screen.py`) cut at 60 it moved the regret by -0.25 ± 0.56 thousandths, at 30 by -1.34 ± 0.86, and at 60
#: with 100 worlds by -2.36 ± 0.85; on fresh deals (seeds 18000-18313) that last scored +41.8 against the default's +31.3
#: beside it, +10.4 Elo (-5.9 .. +27.0), inside the noise (Session 13).  The default since Session 14, cut at 30 with 150
#: worlds raced (pre-registered, then measured on 400 fresh deals against the 45 worlds cut at 60: +65.1 against +42.2,
#: +22.9 Elo (+10.5 .. +35.5) deal by deal; README).
FIELD_RULESETS = frozenset({"maumau-online"})
FIELD_LEAF = {"maumau-online": 30}
#: Rulesets (those of `POSTERIOR`) whose trials search the searcher's own next N decisions inside each world
#: (`own_plan.OwnPlan`: the best of each one's actions in that world, the tactician playing the rest; `--plan N`, 0: the
#: flat search).  None by default: with 46 worlds (1.6 times the default's CPU) `--plan 1` scored +41.9 (+9.9 .. +74.6)
#: in-process over 400 games (seeds 13000-13099 and 15000-15099), -0.065 ± 0.097 pair points deal by deal against the
#: default on the same deals (+65.0 there): the world's own best later choice is strategy fusion (README, Session 11).
PLAN = {}
#: Rulesets (those of `POSTERIOR`) whose trials choose the searcher's own next N decisions by nodes over its information
#: sets that the worlds share (`own_tree.OwnTree`: POMCP below the root, the tactician's choice as each node's prior;
#: `--tree N`, 0: the flat search), and the worlds a decision then (`TREE_WORLDS`, else the budget's).  None by default:
#: `--tree 2 --worlds 120` (about 90 ms a decision, the issue's budget) scored +98.1 in-process on seeds 15000-15199 but
#: +75.9 (+47.8 .. +105.0) on fresh seeds 17000-17199, -0.025 ± 0.089 pair points deal by deal against the default there;
#: +0.068 ± 0.064 over all 800 games, about +24 Elo (README, Session 12).  With its trials cut at 16 decisions and valued
#: by `leaf_value` (`--tree 2 --leaf 16 --worlds 150`, about three times the default's CPU): +75.9 (+55.0 .. +97.3) over
#: 800 fresh games (seeds 23000-23399) against the default's +65.9 beside it, +0.028 ± 0.065 deal by deal (Session 15).
#: Session 18, 2,000 in-process games each: `--tree 2 --worlds 120` +101.5 on seeds 50000-50999 (the default +65.7, +0.097 ±
#: 0.045 pair points) and, validated by a rule written before (README), +86.9 (+73.6 .. +100.5) on fresh seeds
#: 60000-60999 (the default +56.8, +0.083 ± 0.043): stronger, but not +100, and 2-3.7 times the default's CPU.
#: Session 23, `--tree 2 --worlds 200` (about 100 ms a decision here, the issue's budget), pre-registered, 2,000
#: `arena match` games on fresh seeds 80000-80999: +85.8 (+72.7 .. +99.1) against the default's +71.9 beside it, +0.038 ±
#: 0.044 pair points deal by deal: not +100 either.
TREE = {}
TREE_WORLDS = {}
POSTERIOR_OPTIONS = {"seven_stack": False, "eight_deflect": False, "no_jack_on_jack": False, "quick": False,
                     "blind": False, "follow_fail": "lapse", "call_model": "on_one_card"}


def default_budget(ruleset):
    return DEFAULT_BUDGETS.get(ruleset, SHEDDING_BUDGET)


class SearchBot(Bot):
    name = "searcher"
    #: Answers held to a steady pace (`mau_arena_sdk.pace`): its forced decisions (one legal action, answered by the
    #: tactician at once) and its quick ones would otherwise leave in a millisecond and its searched ones after
    #: 40-500 ms, and every seat sees when an answer comes: an instant draw tells that no card fitted, an instant pass
    #: after a draw that the drawn card did not.  `--no-steady` (the SDK's flag) answers as soon as it can, for
    #: measurements; the scripts that play it in-process (`scripts/engine_seat.py`) never pace: pacing is the client's.
    steady = True

    def __init__(self, worlds=None, depth=None, seed=None, confidence=None, infer=True, play_model=None,
                 second_step=None, prune=None, deals=None, epsilon=None, settle=None, moves=None, leaf=None,
                 step_extra=None, plan=None, tree=None):
        self.worlds = worlds
        self.tree = tree  # own decisions chosen by nodes the worlds share (`own_tree.py`); None: where `TREE` says
        self.plan = plan  # own decisions searched inside each world (`own_plan.py`); None: where `PLAN` says
        self.deals = deals  # weight whole deals by the opponents' choices (`deal_weights.py`); None: `DEAL_WEIGHTS`
        self.epsilon = DEAL_EPSILON if epsilon is None else epsilon
        self.settle = DEAL_SETTLE if settle is None else settle  # the deals' chain moves after new events
        self.moves = DEAL_MOVES if moves is None else moves  # and between two hands drawn
        self.leaf = leaf  # cut the rollouts at this many decisions, valued by `leaf_value`; None: where `LEAF` says
        self.prune = prune  # race the worlds (`pimc.Searcher.race`) with this pruning threshold; None: the budget's
        self.depth = depth
        self.seed = seed
        self.confidence = confidence
        self.infer = infer  # read the public history (inference.py) to make the sampled worlds agree with it
        self.play_model = play_model  # read the opponents' chosen cards (`PlayTell`); None: where `PLAY_MODEL` says
        self.second_step = second_step  # search the own next decision too; None: where `SECOND_STEP` says
        self.step_extra = step_extra  # the second step's pass-2 rollouts a decision; None: `SECOND_STEP_EXTRA`'s
        self.policy = Tactician()  # plays the forced and budget-0 decisions, and is the search's prior
        self.games = {}  # game id -> (Searcher, rng, CardTracker or None)

    def budget(self, ruleset):
        base = default_budget(ruleset)
        return replace(base, worlds=base.worlds if self.worlds is None else self.worlds,
                       depth=base.depth if self.depth is None else self.depth,
                       confidence=base.confidence if self.confidence is None else self.confidence,
                       prune=base.prune if self.prune is None else self.prune)

    def reads_plays(self, ruleset):
        """Whether the card tracker reads the opponents' choice of card as the tactician's (`PlayTell`)."""
        return ruleset in PLAY_MODEL if self.play_model is None else bool(self.play_model)

    def on_game_start(self, game):
        self.policy.on_game_start(game)
        facts = game.facts or Facts({})
        points = {card: info.get("points", 0) for card, info in (facts.data.get("cards") or {}).items()}
        rollout = Tactician()  # the rollout policy; one per game: games may overlap, with other facts
        rollout.facts["rollout"] = facts  # the rollouts' turns carry the game id "rollout"
        searcher = self.searcher(game, facts, rollout, points)
        seed = self.seed if self.seed is not None else random.randrange(2**32)
        tracker = None
        if self.infer and tracks(game.ruleset):
            tracker = CardTracker(facts, policy_tells=game.ruleset in ENGINE_HISTORY,
                                  play_model=PlayModel(facts) if self.reads_plays(game.ruleset) else None)
        history = Tracker(game.ruleset, **game.options) if self.infer and game.ruleset in ENGINE_HISTORY else None
        self.games[game.game_id] = (searcher, random.Random(f"{seed}:{game.game_id}"), tracker, history)

    def searcher(self, game, facts, rollout, points):
        """The game's `pimc.Searcher` (with a `HandPosterior` in the rulesets of `POSTERIOR`, two seats)."""
        budget = self.budget(game.ruleset)
        deck = facts.data.get("deck")
        deals = game.ruleset in DEAL_WEIGHTS if self.deals is None else bool(self.deals)
        if self.infer and deals and deck and all(game.options.get(k, v) == v for k, v in DEAL_OPTIONS.items()):
            searcher = DealSearcher(game.ruleset, game.options, rollout.act, budget, points)
            searcher.deals = DealPosterior(facts, deck, self.epsilon, self.moves, self.settle)
            return searcher
        usual = all(game.options.get(key, value) == value for key, value in POSTERIOR_OPTIONS.items())
        if not (self.infer and game.ruleset in POSTERIOR and len(game.players) == 2 and deck and usual):
            leaf = FIELD_LEAF.get(game.ruleset) if self.leaf is None else (self.leaf or None)
            if leaf and game.ruleset in FIELD_RULESETS and len(game.players) > 2:
                return _field_valued(Searcher)(game.ruleset, game.options, rollout.act, replace(budget, depth=leaf), points)
            return Searcher(game.ruleset, game.options, rollout.act, budget, points)
        second = game.ruleset in SECOND_STEP if self.second_step is None else bool(self.second_step)
        kind = SecondStepSearcher if second else PosteriorSearcher
        leaf = LEAF.get(game.ruleset) if self.leaf is None else (self.leaf or None)
        if leaf and not second:  # the second step values its own rollouts (`second_step.py`): the full ones
            kind = _leaf_valued(kind)
            budget = replace(budget, depth=leaf)
        plan = PLAN.get(game.ruleset, 0) if self.plan is None else self.plan
        tree = TREE.get(game.ruleset, 0) if self.tree is None else self.tree
        own = 0  # the searcher's own next decisions searched below the root (`own_plan`, `own_tree`)
        if plan and not second and not leaf:
            kind, own = _planned(kind), plan
        elif tree and not second:  # with `leaf`, the nodes' trials are cut and valued as the flat ones
            kind, own = _treed(kind), tree
            if self.worlds is None and game.ruleset in TREE_WORLDS:
                budget = replace(budget, worlds=TREE_WORLDS[game.ruleset])
        searcher = kind(game.ruleset, game.options, rollout.act, budget, points)
        if own:
            searcher.own = own
        searcher.posterior = HandPosterior(facts, deck, sweeps=POSTERIOR_SWEEPS)
        if second:
            extra = SECOND_STEP_EXTRA.get(game.ruleset, SecondStep.extra) if self.step_extra is None else self.step_extra
            searcher.step = replace(searcher.step, extra=extra)
        return searcher

    def on_game_end(self, game, result):
        self.policy.on_game_end(game, result)
        self.games.pop(game.game_id, None)

    def act(self, turn):
        started = time.monotonic()
        entry = self.games.get(turn.game_id)
        if entry is None:
            return self.policy.act(turn)
        searcher, rng, tracker, history = entry
        if tracker is not None:
            tracker.update(turn.history)
        if history is not None:
            history.update(turn.history)
        posterior = getattr(searcher, "posterior", None)
        if posterior is not None:
            posterior.update(turn.history, turn.observation)
        deals = getattr(searcher, "deals", None)
        if deals is not None:
            deals.update(turn.history, turn.observation)
        prior = self.policy.act(turn)
        if len(turn.legal) == 1 or searcher.budget.worlds <= 0:
            return prior
        searcher.stop_at = started + TIME_SHARE * turn.time_left_ms / 1000 if turn.time_left_ms > 0 else None
        return searcher.choose(turn.observation, turn.legal, rng, turn.index_of(prior), tracker, history)


@functools.cache
def _leaf_valued(kind):
    """`kind` with its rollouts cut and valued by `LeafValued`: one class per searcher kind, made once."""
    return type(f"Leaf{kind.__name__}", (LeafValued, kind), {})


@functools.cache
def _field_valued(kind):
    """`kind` with its cut rollouts valued by `FieldLeafValued` (3 or more seats): one class per searcher kind, made once."""
    return type(f"FieldLeaf{kind.__name__}", (FieldLeafValued, kind), {})


@functools.cache
def _planned(kind):
    """`kind` with its trials searching the own next decisions (`OwnPlan`): one class per searcher kind, made once."""
    return type(f"Planned{kind.__name__}", (OwnPlan, kind), {})


@functools.cache
def _treed(kind):
    """`kind` with its own next decisions chosen by shared nodes (`OwnTree`): one class per searcher kind, made once."""
    return type(f"Treed{kind.__name__}", (OwnTree, kind), {})


def _nonnegative(kind):
    """An argparse type: a number of `kind` that is 0 or more (a negative cut or threshold means nothing)."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
        return value
    return parse


def budget_parser():
    """The search's own flags (`--worlds`, `--depth`, `--search-seed`, ...)."""
    parser = argparse.ArgumentParser(add_help=False, prog="searcher.py", description="The search's own flags:")
    parser.add_argument("--worlds", type=int, default=None, help="worlds sampled per decision")
    parser.add_argument("--depth", type=int, default=None, help="rollout cap in decisions")
    parser.add_argument("--search-seed", type=int, default=None, help="seed of the search's randomness")
    parser.add_argument("--confidence", type=float, default=None,
                        help="standard errors of gain the search needs to overrule the tactician (default 0: ties only)")
    parser.add_argument("--no-history", dest="infer", action="store_false",
                        help="sample worlds from the observation alone, not what the public history tells")
    parser.add_argument("--play-model", dest="play_model", action="store_true", default=None,
                        help="read the opponents' chosen cards as the tactician's (`PlayTell`) in every shedding ruleset")
    parser.add_argument("--no-play-model", dest="play_model", action="store_false",
                        help="do not read the opponents' chosen cards (default: in the rulesets of `PLAY_MODEL`)")
    parser.add_argument("--second-step", dest="second_step", action="store_true", default=None,
                        help="search the own next decision too (`second_step.py`; 2-seat maumau)")
    parser.add_argument("--no-second-step", dest="second_step", action="store_false",
                        help="the flat search (default: in the rulesets of `SECOND_STEP`)")
    parser.add_argument("--step-extra", type=_nonnegative(int), default=None,
                        help="the second step's pass-2 rollouts a decision (default: `SECOND_STEP_EXTRA`, else 120)")
    parser.add_argument("--deals", dest="deals", action="store_true", default=None,
                        help="weight whole deals by the opponents' past choices as the tactician's (`deal_weights.py`)")
    parser.add_argument("--no-deals", dest="deals", action="store_false",
                        help="do not (default: in the rulesets of `DEAL_WEIGHTS`)")
    parser.add_argument("--prune", type=_nonnegative(float), default=None,
                        help="race the worlds: an action trailing the leader by this many standard errors gets no more "
                             "rollouts, which go to more worlds for the rest (`pimc.Searcher.race`; 0: the flat search)")
    parser.add_argument("--leaf", type=_nonnegative(int), default=None,
                        help="cut the rollouts at this many decisions and value them by `leaf_value.win_chance` (2-seat "
                             "maumau, not with --second-step; 0: to the end of the hand; default: as `LEAF` says) or, "
                             "in the rulesets of `FIELD_RULESETS` with 3 or more seats, by `field_leaf.field_value` "
                             "(0: `pimc.evaluate` at the budget's depth; default: as `FIELD_LEAF` says)")
    parser.add_argument("--plan", type=_nonnegative(int), default=None,
                        help="search the own next N decisions inside each world (`own_plan.py`; 2-seat maumau, not with "
                             "--second-step or --leaf; 0: the flat search; default: as `PLAN` says)")
    parser.add_argument("--tree", type=_nonnegative(int), default=None,
                        help="choose the own next N decisions by nodes over the searcher's information sets that the worlds "
                             "share (`own_tree.py`; 2-seat maumau, not with --second-step or --plan; with --leaf the nodes' "
                             "trials are cut and valued by it; 0: the flat search; default: as `TREE` says)")
    return parser


def parse_budget(argv):
    """The budget flags and the rest (the SDK's flags, which pass through); a plan with the second step or cut
    rollouts, which it does not combine with, is refused in one line (rather than left unused)."""
    parser = budget_parser()
    budget, rest = parser.parse_known_args(argv)
    if budget.plan and (budget.second_step or budget.leaf):
        parser.error("--plan does not combine with --second-step or --leaf: choose one")
    if budget.tree and (budget.second_step or budget.plan):
        parser.error("--tree does not combine with --second-step or --plan: choose one")
    return budget, rest


if __name__ == "__main__":
    budget, rest = parse_budget(sys.argv[1:])
    if "-h" in rest or "--help" in rest:  # the SDK's --help follows, and exits
        print(budget_parser().format_help())
    sys.argv[1:] = rest
    run(SearchBot(budget.worlds, budget.depth, budget.search_seed, budget.confidence, budget.infer, budget.play_model,
                  budget.second_step, budget.prune, budget.deals, leaf=budget.leaf, step_extra=budget.step_extra,
                  plan=budget.plan, tree=budget.tree),
        name="searcher")
