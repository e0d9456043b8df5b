"""`GameOutcome.to_dict`, built field by field, is `dataclasses.asdict` of the outcome."""

from dataclasses import asdict

from arena.match.outcome import GameOutcome, SeatOutcome


def test_an_outcomes_dict_is_its_asdict_and_shares_no_mutable_value():
    seats = [
        SeatOutcome(seat=0, name="alice", placement=2, points=-3, strikes=1, timeouts=1, think_ms=420, decisions=9,
                    max_think_ms=120, stale=2, disconnects=1, strike_reasons=["timeout"], errors=1),
        SeatOutcome(seat=1, name="bob", placement=1, forfeited=True, strike_reasons=["illegal", "malformed"]),
    ]
    outcome = GameOutcome(game_id="g1", ruleset="moumou", options={"max_hands": 2, "deck": ["a", {"b": (1, 2)}]},
                          seed=7, status="finished", seats=seats, decisions=18, reason="out of cards",
                          started_at="2026-11-27T00:00:00Z", ended_at="2026-11-27T00:01:00Z", replay_path="r.jsonl")
    record = outcome.to_dict()
    assert record == asdict(outcome)
    assert list(record) == list(asdict(outcome))  # the same key order: a replay's result line keeps its bytes
    assert list(record["seats"][0]) == list(asdict(seats[0]))
    record["seats"][1]["strike_reasons"].append("x")
    record["options"]["deck"][1]["b"] = None
    assert seats[1].strike_reasons == ["illegal", "malformed"] and outcome.options["deck"][1] == {"b": (1, 2)}
