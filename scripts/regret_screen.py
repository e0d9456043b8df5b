"""Screen searcher variants by their regret on fixed positions, before spending a 400-game match on one.

    python scripts/regret_screen.py positions --ruleset maumau-online --seeds 20000:20030 --count 240 --out pos.jsonl
    python scripts/regret_screen.py reference pos.jsonl --rollouts 24 --part 0/2 --out ref0.json   # and 1/2, in parallel
    python scripts/regret_screen.py screen pos.jsonl ref0.json ref1.json --variant default --variant playtell:play_model=1

`positions` plays games of the searcher (its default budget, one seat, rotating with the seed) against
tacticians in the other seats (engine only, no server) and keeps a share of the searcher's decisions
that have a choice: the turn request it got (its observation and the game's public history, as over
the wire) and the real state (`to_position()`, which the searcher never sees).

`reference` values every legal action of each position in the real state: the action, then every
seat playing on as the tactician to the end of the hand (`pimc.Searcher.trial`), over `--rollouts`
shuffles of the stock (its order is the one thing the real state does not fix for a seat that knew
every hand; every action meets the same shuffles).  The searcher's opponents are tacticians, so
this is the exact value of an action followed by the tactician's play, up to the shuffles' noise;
and since the position's real hands are one draw from whatever the seat could infer, a variant's
mean regret over many positions is an unbiased measure of its choices whatever inference it uses
(a reference from many sampled worlds would favour the sampler it was made with).

`screen` makes each variant choose at every position (a fresh bot fed the position's history, search
seeds fixed per repeat and position, so variants meet the same randomness), and prints per variant
the mean regret (the best action's reference value less the chosen one's, in thousandths of the
searcher's value scale: placement 1 to 0 plus a tenth of the score edge), its difference from the
first variant with the standard error over positions, how often it leaves the tactician's choice,
the CPU ms per decision, and how many of the opponents' hidden cards its sampled worlds put in the
right hand (the share over `--world-check` worlds a position: a direct measure of the inference).

A variant is `NAME[:key=value,...]`; keys: worlds, depth, confidence, tries, prune, warmup, most (the
`pimc.Budget`), play_model (0/1: read the opponents' chosen cards, `inference.PlayTell`), leaf (N: 2-seat `maumau` rollouts
cut at N decisions, `leaf_value`; 0: to the end), infer (0/1: read
the history), deals (0/1: weight whole deals by the opponents' past choices, `deal_weights.py`, with its epsilon,
and the chain's settle and moves), and `known` (a ceiling, never a bot: every sampled world is given the real hand of `all` the
opponents, of the `next` seat in the direction of play, or of the `leader`, the opponent with the fewest
cards; the rest as sampled), which measures what knowing a hand would be worth.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_bots"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from pimc import Searcher  # noqa: E402
from searcher import SearchBot  # noqa: E402
from tactician import Tactician  # noqa: E402

from arena import games  # noqa: E402
from engine_seat import GAME_ID, start, turn_message  # noqa: E402
from mau_arena_sdk import Turn  # noqa: E402
from mau_arena_sdk.wire import pb  # noqa: E402

BUDGET_KEYS = {"worlds": int, "depth": int, "confidence": float, "tries": int, "prune": float, "warmup": int, "most": int}
BOT_KEYS = {"play_model": lambda v: bool(int(v)), "infer": lambda v: bool(int(v)), "deals": lambda v: bool(int(v)),
            "epsilon": float, "settle": int, "moves": int, "leaf": int}
KNOWN = ("all", "next", "leader")


def turn_of(raw: bytes) -> Turn:
    message = pb.TurnRequest()
    message.ParseFromString(raw)
    return Turn.from_pb(message)


# ---------------------------------------------------------------------------------------------- positions
def record_positions(ruleset: str, players: int, options: dict, seeds: range, count: int, share: float,
                     out, progress=None, worlds: int | None = None) -> int:
    """Write up to `count` of the default searcher's decisions with a choice, in games of the given seeds, to
    `out` (a text file) as JSON lines after a header line, each game's as it ends (a stopped run keeps them)."""
    out.write(json.dumps({"ruleset": ruleset, "players": players, "options": options}) + "\n")
    found = 0
    for seed in seeds:
        if found >= count:
            break
        me = seed % players
        bot, other = SearchBot(worlds, seed=seed), Tactician()
        for b in (bot, other):
            start(b, ruleset, players, options)
        state = games.new_game(ruleset, players, seed, **options)
        log = state.record_events()
        keep = random.Random(f"keep:{seed}")
        kept = []
        while not state.is_over and found + len(kept) < count:
            legal, seat = state.legal_actions(), state.current
            message = turn_message(state, legal, log)
            turn = Turn.from_pb(message)
            if seat == me and len(legal) > 1:
                if keep.random() < share:
                    kept.append({"seed": seed, "seat": me, "turn": base64.b64encode(message.SerializeToString()).decode(),
                                 "truth": state.to_position()})
                choice = bot.act(turn)
            else:
                choice = other.act(turn)
            state.apply(legal[turn.index_of(choice)])
        out.writelines(json.dumps(position) + "\n" for position in kept)
        out.flush()
        found += len(kept)
        if progress:
            progress(f"seed {seed}: {found} positions")
    return found


# ---------------------------------------------------------------------------------------------- reference
def rollout_searcher(ruleset: str, players: int, options: dict) -> Searcher:
    """The searcher's own rollout machinery (tactician policy, value) with rollouts to the end of the hand."""
    bot = SearchBot(seed=0)
    start(bot, ruleset, players, options)
    searcher = bot.games[GAME_ID][0]
    searcher.budget = replace(searcher.budget, depth=100_000)
    return searcher


def reference_values(searcher: Searcher, ruleset: str, options: dict, position: dict, index: int,
                     rollouts: int) -> list[float]:
    """Each legal action's mean value in the real state over `rollouts` shuffles of the stock."""
    turn = turn_of(base64.b64decode(position["turn"]))
    observation = turn.observation
    seat = observation["seat"]
    start_scores = list(observation.get("scores") or ()) or None
    texts = [str(a) for a in turn.legal]
    totals = [0.0] * len(texts)
    for r in range(rollouts):
        rng = random.Random(f"reference:{index}:{r}")
        truth = json.loads(json.dumps(position["truth"]))
        rng.shuffle(truth["stock"])
        truth["seed"] = rng.getrandbits(31)  # later reshuffles differ too
        world = games.from_position(ruleset, truth, **options)
        if [str(a) for a in world.legal_actions()] != texts:
            raise SystemExit(f"position {index}: the real state's legal actions differ from the turn's")
        seed = rng.getrandbits(32)
        for k, text in enumerate(texts):
            totals[k] += searcher.trial(world, text, seat, start_scores, random.Random(seed))
    return [t / rollouts for t in totals]


# ---------------------------------------------------------------------------------------------- variants
@dataclass
class Variant:
    name: str
    budget: dict = field(default_factory=dict)  # pimc.Budget fields overridden
    bot: dict = field(default_factory=dict)  # SearchBot keyword arguments
    known: str | None = None  # whose real hands the worlds hold (`KNOWN`): a ceiling, not a bot

    @classmethod
    def parse(cls, text: str) -> "Variant":
        name, _, rest = text.partition(":")
        variant = cls(name or text)
        for item in filter(None, rest.split(",")):
            key, eq, value = item.partition("=")
            if not eq or key not in {**BUDGET_KEYS, **BOT_KEYS, "known": None}:
                raise ValueError(f"variant {text!r}: {item!r} is not key=value with a key of "
                                 f"{', '.join(sorted({**BUDGET_KEYS, **BOT_KEYS, 'known': None}))}")
            if key == "known":
                if value not in KNOWN:
                    raise ValueError(f"variant {text!r}: known={value!r} is not one of {', '.join(KNOWN)}")
                variant.known = value
                continue
            try:
                if key in BUDGET_KEYS:
                    variant.budget[key] = BUDGET_KEYS[key](value)
                else:
                    variant.bot[key] = BOT_KEYS[key](value)
            except ValueError:
                raise ValueError(f"variant {text!r}: {value!r} is not a valid {key}") from None
        return variant

    def bot_for(self, ruleset: str, players: int, options: dict, seed: int, truth: dict | None = None,
                turn: Turn | None = None) -> SearchBot:
        bot = SearchBot(seed=seed, **self.bot)
        start(bot, ruleset, players, options)
        searcher = bot.games[GAME_ID][0]
        if self.budget:
            searcher.budget = replace(searcher.budget, **self.budget)
        if self.known and truth is not None and turn is not None:
            observation = turn.observation
            seats = known_seats(self.known, observation["seat"], observation.get("direction") or 1,
                                list(observation["hand_sizes"]))
            sample = searcher.world  # the searcher's own (bound) world method

            def world(sampler, rng, tracker, seat, visible):
                return with_hands(sample(sampler, rng, tracker, seat, visible), truth, seats, seat, ruleset, options)

            searcher.world = world
        return bot


def known_seats(known: str, me: int, direction: int, sizes: list[int]) -> list[int]:
    """The opponents whose real hands a `known` variant gives its worlds."""
    others = [s for s in range(len(sizes)) if s != me]
    if known == "all":
        return others
    if known == "next":
        return [(me + direction) % len(sizes)]
    return [min(others, key=lambda s: (sizes[s], (s - me) % len(sizes)))]


def with_hands(world, truth: dict, seats: list[int], me: int, ruleset: str, options: dict):
    """`world` (a sampled state) with the real hands of `seats` from `truth`: each card a seat lacks is traded
    with the other opponents' hands or the stock for a card it has too many of (the world unchanged if one
    cannot be found, which a sampler that places the pile right never gives)."""
    position = world.to_position()
    hands = [list(h) for h in position["hands"]]
    stock = list(position["stock"])
    for x in seats:
        real = truth["hands"][x]
        have, want = Counter(hands[x]), Counter(real)
        places = [hands[s] for s in range(len(hands)) if s not in (me, x) and s not in seats[:seats.index(x)]]
        places.append(stock)
        for card, spare in zip((want - have).elements(), (have - want).elements()):
            place = next((p for p in places if card in p), None)
            if place is None:
                return world
            place[place.index(card)] = spare
        hands[x] = list(real)
    position["hands"], position["stock"] = hands, stock
    return games.from_position(ruleset, position, **options)


@dataclass
class Outcome:
    regrets: list[float]  # per position, the mean over repeats
    moved: int  # choices other than the tactician's
    decisions: int
    cpu: float
    hits: float  # opponents' hidden cards the worlds put in the right hand, over all checked
    hidden: int
    wrong: int  # positions whose real deal the card tracker judges wrong


def hidden_hits(bot: SearchBot, turn: Turn, truth: dict, worlds: int, seed: str) -> tuple[int, int, bool]:
    """How many of the opponents' real cards `worlds` sampled worlds put in the right hand, of how many, and
    whether the bot's card tracker judges the real deal wrong (a tell of a model that the real tacticians
    broke: the opponents are tacticians, so a right model never rules their real hands out)."""
    searcher, _, tracker, history = bot.games[GAME_ID]
    observation = turn.observation
    me = observation["seat"]
    wrong = tracker is not None and tracker.broken([list(h) for h in truth["hands"]], me) > 0
    sampler = searcher.sampler(observation, history)
    rng = random.Random(seed)
    visible = len(observation.get("discard") or ())
    hits = total = 0
    for _ in range(worlds):
        world = searcher.world(sampler, rng, tracker, me, visible)
        hands = world.to_position()["hands"]
        for s, real in enumerate(truth["hands"]):
            if s == me:
                continue
            left = list(hands[s])
            for card in real:
                total += 1
                if card in left:
                    left.remove(card)
                    hits += 1
    return hits, total, wrong


def screen_variant(variant: Variant, ruleset: str, players: int, options: dict, positions: list[dict],
                   references: dict[int, list[float]], repeats: int, world_check: int) -> Outcome:
    regrets, moved, decisions, cpu, hits, hidden, wrong = [], 0, 0, 0.0, 0, 0, 0
    for k, position in enumerate(positions):
        values = references[k]
        best = max(values)
        raw = base64.b64decode(position["turn"])
        per = []
        for r in range(repeats):
            turn = turn_of(raw)
            bot = variant.bot_for(ruleset, players, options, seed=1_000_003 * r + k, truth=position["truth"], turn=turn)
            prior = Tactician()
            start(prior, ruleset, players, options)
            t0 = time.process_time()
            choice = turn.index_of(bot.act(turn))
            cpu += time.process_time() - t0
            decisions += 1
            moved += choice != turn.index_of(prior.act(turn))
            per.append(best - values[choice])
        regrets.append(statistics.fmean(per))
        if world_check:
            turn = turn_of(raw)
            bot = variant.bot_for(ruleset, players, options, seed=k)
            tracker, history = bot.games[GAME_ID][2:]  # fed as `SearchBot.act` feeds them
            if tracker is not None:
                tracker.update(turn.history)
            if history is not None:
                history.update(turn.history)
            deals = getattr(bot.games[GAME_ID][0], "deals", None)
            if deals is not None:
                deals.update(turn.history, turn.observation)
            h, t, w = hidden_hits(bot, turn, position["truth"], world_check, f"check:{k}")
            hits, hidden, wrong = hits + h, hidden + t, wrong + w
    return Outcome(regrets, moved, decisions, cpu, hits, hidden, wrong)


def mean_se(xs: list[float]) -> tuple[float, float]:
    return statistics.fmean(xs), (statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0)


# ---------------------------------------------------------------------------------------------- command line
def load_positions(path: str) -> dict:
    """A positions file: a header line (ruleset, players, options), then a position a line.  Files of one
    ruleset joined by `cat` are one file (the repeated header lines must agree)."""
    header, positions = None, []
    try:
        with open(path) as lines:
            for number, line in enumerate(lines, 1):
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise ValueError(f"line {number}: not a JSON object")
                if "turn" in item:
                    positions.append(item)
                elif header is None:
                    header = item
                elif item != header:
                    raise ValueError(f"line {number}: a header for another game ({item}) than the first ({header})")
    except (OSError, ValueError) as error:
        raise SystemExit(f"cannot read positions {path}: {error}") from None
    if header is None or not {"ruleset", "players", "options"} <= header.keys():
        raise SystemExit(f"{path} is not a positions file (made by `regret_screen.py positions`)")
    return {**header, "positions": positions}


def span(text: str) -> range:
    try:
        first, last = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"wants first:last, got {text!r}") from None
    return range(first, last)


def part(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"wants i/n, got {text!r}") from None
    if not 0 <= i < n:
        raise argparse.ArgumentTypeError(f"part {text!r}: i must be in 0..n-1")
    return i, n


def options_of(items: list[str]) -> dict:
    options = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise SystemExit(f"--option wants key=value, got {item!r}")
        options[key] = json.loads(value) if value[:1] in "0123456789-[{tf\"" else value
    return options


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("positions", help="record the searcher's decisions (and the real states) against tacticians")
    p.add_argument("--ruleset", default="maumau-online")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--option", action="append", default=[], help="key=value, a ruleset option")
    p.add_argument("--seeds", type=span, default=span("20000:20100"), help="first:last (exclusive) game seeds")
    p.add_argument("--count", type=int, default=160)
    p.add_argument("--share", type=float, default=0.5, help="the share of the searched decisions kept")
    p.add_argument("--worlds", type=int, default=None, help="the recording searcher's worlds (default: its budget's)")
    p.add_argument("--out", required=True)
    r = sub.add_parser("reference", help="every action's value in the real state, rollouts to the end of the hand")
    r.add_argument("positions")
    r.add_argument("--rollouts", type=int, default=24)
    r.add_argument("--part", type=part, default=(0, 1), help="i/n: only positions k with k %% n == i (parallel runs)")
    r.add_argument("--out", required=True)
    s = sub.add_parser("screen", help="each variant's regret against the reference values")
    s.add_argument("positions")
    s.add_argument("references", nargs="+")
    s.add_argument("--variant", action="append", default=[], help="NAME[:key=value,...] (first: the baseline)")
    s.add_argument("--repeats", type=int, default=2, help="search seeds per position")
    s.add_argument("--world-check", type=int, default=28, help="worlds a position for the hidden-card check (0: none)")
    s.add_argument("--limit", type=int, default=None, help="only the first N positions")
    s.add_argument("--out", default=None, help="also write each variant's regret per position here (JSON)")
    args = parser.parse_args(argv)
    say = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731

    if args.command == "positions":
        options = options_of(args.option)
        with open(args.out, "w") as out:
            found = record_positions(args.ruleset, args.players, options, args.seeds, args.count, args.share, out, say,
                                     args.worlds)
        print(f"{found} positions of {args.ruleset} written to {args.out}")
    elif args.command == "reference":
        data = load_positions(args.positions)
        ruleset, players, options = data["ruleset"], data["players"], data["options"]
        searcher = rollout_searcher(ruleset, players, options)
        i, n = args.part
        values = {}
        for k, position in enumerate(data["positions"]):
            if k % n == i:
                values[k] = reference_values(searcher, ruleset, options, position, k, args.rollouts)
                say(f"position {k}: {[round(v, 3) for v in values[k]]}")
        Path(args.out).write_text(json.dumps({"rollouts": args.rollouts, "values": values}))
        print(f"{len(values)} positions valued ({args.rollouts} rollouts each) written to {args.out}")
    else:
        data = load_positions(args.positions)
        ruleset, players, options = data["ruleset"], data["players"], data["options"]
        references: dict[int, list[float]] = {}
        for path in args.references:
            try:
                references.update({int(k): v for k, v in json.loads(Path(path).read_text())["values"].items()})
            except (OSError, ValueError, KeyError) as error:
                raise SystemExit(f"cannot read reference values {path}: {error}") from None
        positions = data["positions"][: args.limit]
        missing = [k for k in range(len(positions)) if k not in references]
        if missing:
            raise SystemExit(f"no reference values for {len(missing)} positions (first: {missing[0]}): "
                             "run `reference` for every part")
        try:
            variants = [Variant.parse(v) for v in (args.variant or ["default"])]
        except ValueError as error:
            raise SystemExit(str(error)) from None
        base, dump = None, {}
        for variant in variants:
            out = screen_variant(variant, ruleset, players, options, positions, references, args.repeats,
                                 args.world_check)
            mean, se = mean_se(out.regrets)
            line = (f"{variant.name:24} regret {1000 * mean:6.2f} ± {1000 * se:4.2f}e-3")
            if base is None:
                base = out.regrets
                line += "      (baseline)     "
            else:
                d_mean, d_se = mean_se([a - b for a, b in zip(out.regrets, base)])
                line += f"  vs baseline {1000 * d_mean:+5.2f} ± {1000 * d_se:4.2f}"
            line += (f"  off the tactician {100 * out.moved / out.decisions:4.1f}%"
                     f"  {1000 * out.cpu / out.decisions:6.1f} ms/decision")
            if out.hidden:
                line += (f"  hidden cards placed right {100 * out.hits / out.hidden:5.2f}%"
                         f"  real deal judged wrong {100 * out.wrong / len(positions):4.1f}%")
            print(line + f"  ({len(positions)} positions × {args.repeats})", flush=True)
            dump[variant.name] = out.regrets
            if args.out:
                Path(args.out).write_text(json.dumps(dump))


if __name__ == "__main__":
    main()
