"""The commit–reveal shuffle ``hmac-sha256/1`` (docs/fairness.md): the derivation
against a second implementation written here from docs/fairness.md's text alone, uniformity
(chi-square, printed), permutations (hypothesis), and the Game and its record with a Fairness:
the commitment and client seeds in the ``game`` message, the server seed only in ``game_over``
and in a finished game's record."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leakcheck import check_stream, check_view

from crisp.engine.common.fairness import Committed, Fairness, seed_from_int
from crisp.engine.crisp import Game, Options
from crisp.engine.crisp.cards import SORTED_DECK
from crisp.engine.crisp.messages import dumps_stream, stream
from crisp.engine.crisp.record import RecordError, load, replay
from crisp.engine.crisp.shuffle import first_dealer, round_deck
from crisp.engine.crisp.simulate import play_random

# -- a second implementation, from docs/fairness.md's text only -----------------------------------


def ref_key(server_seed: bytes, client_seeds: list[str]) -> bytes:
    msg = json.dumps(client_seeds, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return hmac.new(server_seed, msg, hashlib.sha256).digest()


def ref_ints(key: bytes, label: bytes) -> Any:
    i = 0
    while True:
        block = hmac.new(key, label + i.to_bytes(4, "big"), hashlib.sha256).digest()
        for k in range(0, 32, 8):
            yield int.from_bytes(block[k : k + 8], "big")
        i += 1


def ref_below(ints: Any, n: int) -> int:
    while True:
        x = next(ints)
        if x < 2**64 - (2**64 % n):
            return x % n


def ref_dealer(key: bytes, players: int) -> int:
    return ref_below(ref_ints(key, b"dealer"), players)


def ref_deck(key: bytes, r: int) -> list[str]:
    cards = [rank + suit for suit in "SHDC" for rank in "A23456789TJQK"]
    ints = ref_ints(key, b"deck" + r.to_bytes(4, "big"))
    for i in range(51, 0, -1):
        j = ref_below(ints, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


# -- the derivation --------------------------------------------------------------------------------


def test_the_sorted_deck_is_the_issues() -> None:
    """``AS 2S … KS AH … KC``: spades, hearts, diamonds, clubs, each A 2 … T J Q K."""
    assert SORTED_DECK[:3] == ("AS", "2S", "3S") and SORTED_DECK[12:14] == ("KS", "AH")
    assert SORTED_DECK[-1] == "KC" and len(SORTED_DECK) == 52


def test_known_values() -> None:
    """Pinned values, so that a change of the derivation cannot pass unnoticed (and so that a
    re-implementation has something to compare with; docs/fairness.md lists them)."""
    seed = seed_from_int(7)
    assert seed == hashlib.sha256(b"crisp-seed:7").digest()
    fair = Fairness(seed, ("a1b2", ""))
    assert fair.commitment() == hashlib.sha256(seed).hexdigest()
    assert fair.key() == hmac.new(seed, b'["a1b2",""]', hashlib.sha256).digest()
    assert first_dealer(fair, 2) == ref_dealer(fair.key(), 2)
    assert round_deck(fair, 1) == ref_deck(fair.key(), 1)
    assert fair.commitment() == "0abbd87ce0240783c765e5e32101e06142f7fd492b84dcad7d87b3691bbb66ae"
    assert fair.key().hex() == "99c4a84a7fcce7806cb918be3f0d9a73de58327b6ae3107dd83546db0ad7f709"
    assert first_dealer(fair, 2) == 0
    assert round_deck(fair, 1)[:6] == ["2H", "KC", "JC", "TS", "KS", "7C"]


@settings(max_examples=150, deadline=None)
@given(
    server_seed=st.binary(min_size=32, max_size=32),
    client_seeds=st.lists(st.text(max_size=64), min_size=2, max_size=8),
    r=st.integers(min_value=1, max_value=2**32 - 1),
)
def test_agrees_with_the_second_implementation(
    server_seed: bytes, client_seeds: list[str], r: int
) -> None:
    """The engine's dealer and decks are the ones docs/fairness.md specifies, for any seeds
    (unicode client seeds included) and any round; every deck is a permutation of the 52."""
    try:
        fair = Fairness(server_seed, tuple(client_seeds))
    except ValueError:  # a lone surrogate is no UTF-8 text: refused, never hashed
        with pytest.raises(UnicodeEncodeError):
            "".join(client_seeds).encode("utf-8")
        return
    key = ref_key(server_seed, client_seeds)
    assert fair.key() == key
    n = len(client_seeds)
    assert first_dealer(fair, n) == ref_dealer(key, n)
    assert 0 <= first_dealer(fair, n) < n
    deck = round_deck(fair, r)
    assert deck == ref_deck(key, r)
    assert sorted(deck) == sorted(SORTED_DECK)


def test_below_rejects_the_biased_top() -> None:
    """``below(n)`` reads past integers at or above 2^64 − (2^64 mod n): forced here by a stream
    whose first integer is in the rejected range."""
    from crisp.engine.common.fairness import Stream

    class Fixed(Stream):
        def __init__(self, values: list[int]) -> None:
            super().__init__(b"k", b"x")
            self.values = values

        def next64(self) -> int:
            return self.values.pop(0)

    n = 3  # 2^64 mod 3 == 1: the one rejected integer is 2^64 - 1
    assert Fixed([2**64 - 1, 5]).below(n) == 5 % 3
    assert Fixed([2**64 - 2, 5]).below(n) == (2**64 - 2) % 3


def _p_value(chi2: float, df: int) -> float:
    """Upper tail of chi-square (Wilson–Hilferty), good to a few digits for df >= 30."""
    z = ((chi2 / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def _chi2(counts: list[int], expected: float) -> float:
    return sum((c - expected) ** 2 / expected for c in counts)


def test_decks_are_uniform_chi_square() -> None:
    """Property (the shuffle is uniform): over 100,000 decks (fixed seed, rounds 1 to 100,000 of one
    game), the position of the first card of the sorted deck (AS), the card on top, and the pair of
    positions of AS and 2S are uniform by a chi-square test. Printed; a p-value outside [1e-6, 1 −
    1e-6] (too uneven, or too even) fails."""
    fair = Fairness.from_int(2026, 4)
    decks = 100_000
    where_as = [0] * 52
    top = [0] * 52
    index = {c: i for i, c in enumerate(SORTED_DECK)}
    pairs = [0] * (52 * 52)
    for r in range(1, decks + 1):
        deck = round_deck(fair, r)
        a = deck.index("AS")
        b = deck.index("2S")
        where_as[a] += 1
        top[index[deck[0]]] += 1
        pairs[a * 52 + b] += 1
    lines = []
    results = []
    for name, counts, cells in (
        ("position of AS", where_as, 52),
        ("card on top", top, 52),
        ("positions of (AS, 2S)", [c for k, c in enumerate(pairs) if k // 52 != k % 52], 2652),
    ):
        assert len(counts) == cells and sum(counts) == decks
        chi2 = _chi2(counts, decks / cells)
        p = _p_value(chi2, cells - 1)
        results.append(p)
        lines.append(f"{name}: chi2 = {chi2:.1f}, df = {cells - 1}, p = {p:.3f}")
    print("\n".join(["", f"chi-square over {decks:,} decks (hmac-sha256/1, seed 2026):", *lines]))
    assert all(1e-6 < p < 1 - 1e-6 for p in results), lines


# -- the game ----------------------------------------------------------------------------------


def _fair(n: int = 3) -> Fairness:
    return Fairness(seed_from_int(41), tuple(f"{k:02x}c0ffee" if k else "" for k in range(n)))


def test_game_deals_by_its_fairness() -> None:
    fair = _fair()
    game = Game(["Ana", "Ben", "Chloé"], Options(), fairness=fair)
    game.start_round()
    assert game.round.dealer == first_dealer(fair, 3)
    assert game.record()["rounds"][0]["deck"] == round_deck(fair, 1)


def test_a_seed_and_a_fairness_do_not_mix() -> None:
    with pytest.raises(ValueError, match="not both"):
        Game(["A", "B"], seed=1, fairness=_fair(2))
    with pytest.raises(ValueError, match="3 client seeds for 2 seats"):
        Game(["A", "B"], fairness=_fair(3))
    with pytest.raises(ValueError, match="32 bytes"):
        Fairness(b"short", ("", ""))
    with pytest.raises(ValueError, match="longer than 64"):
        Fairness(seed_from_int(1), ("x" * 65, ""))


def _finished(seed: int = 5, players: int = 3) -> Game:
    game = play_random(players, Options(limit=50), seed, fair=True)
    assert game.over
    return game


def test_messages_carry_the_commitment_and_reveal_the_seed_only_at_the_end() -> None:
    """The ``game`` message: commitment and client seeds; ``game_over``: the server seed; no
    other message (and no view before the end) carries the seed."""
    game = _finished()
    fair = game.fairness
    assert isinstance(fair, Fairness)
    record = game.record()
    outs = replay(record).outs
    secret = fair.server_seed.hex()
    first = outs[0].msg
    assert first["type"] == "game"
    assert first["commitment"] == fair.commitment() and first["client_seeds"] == ["", "", ""]
    last = [o.msg for o in outs if o.msg["type"] == "game_over"]
    assert len(last) == 1 and last[0]["server_seed"] == secret
    before = dumps_stream(o.msg for o in outs if o.msg["type"] != "game_over")
    assert secret not in before
    for seat in (0, 1, 2, None):
        assert check_stream(record, stream(outs, seat), seat) == []


def test_record_hides_the_server_seed_until_the_game_is_over() -> None:
    """An unfinished game's record (and view) has the commitment and client seeds only; it
    replays (its decks are given) without the seed, to the same messages."""
    fair = _fair()
    live = Game(["P1", "P2", "P3"], Options(), fairness=fair)
    outs = live.start_round()
    rec = live.record()
    assert rec["shuffle"] == "hmac-sha256/1"
    public = {"commitment": fair.commitment(), "client_seeds": list(fair.client_seeds)}
    assert rec["fairness"] == public
    assert fair.server_seed.hex() not in json.dumps(rec) + json.dumps(live.view(0))
    assert live.view(None)["fairness"] == public
    rep = replay(rec)
    assert isinstance(rep.game.fairness, Committed)
    for seat in (0, 1, 2, None):
        assert stream(rep.outs, seat) == stream(outs, seat)
        assert check_stream(rec, stream(outs, seat), seat) == []
        assert check_view(rec, stream(outs, seat), seat, live.view(seat)) == []


def test_finished_record_replays_to_the_same_streams() -> None:
    game = _finished(6, 4)
    record = game.record()
    fair = game.fairness
    assert isinstance(fair, Fairness)
    assert record["fairness"]["server_seed"] == fair.server_seed.hex()
    rep = replay(json.loads(json.dumps(record)))
    assert rep.game.record() == record and rep.result == game.result()
    view = rep.game.view(2)
    assert view["fairness"] == record["fairness"]
    assert check_view(record, stream(rep.outs, 2), 2, view) == []


def test_simulate_records_are_the_new_form() -> None:
    """``crisp simulate`` deals from ``Fairness.from_int(seed, players)``: documented, and
    reproducible from the seed alone."""
    game = play_random(2, Options(), 3, fair=True)
    fair = game.fairness
    assert fair == Fairness(hashlib.sha256(b"crisp-seed:3").digest(), ("", ""))
    assert game.record()["rounds"][1]["deck"] == round_deck(fair, 2)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda r: r.pop("fairness"), "both 'shuffle'"),
        (lambda r: r.pop("shuffle"), "both 'shuffle'"),
        (lambda r: r.update(shuffle="splitmix64"), "shuffle must be"),
        (lambda r: r.update(seed=3), "a seed or a fairness"),
        (lambda r: r["fairness"].update(commitment="ABC"), "commitment"),
        (lambda r: r["fairness"].update(server_seed="00"), "server_seed is 64"),
        (lambda r: r["fairness"]["client_seeds"].pop(), "client_seeds has 2 seeds for 3 seats"),
        (lambda r: r["fairness"]["client_seeds"].__setitem__(0, 7), "client seed 0 must be"),
        (lambda r: r["fairness"].update(extra=1), "unknown field 'extra'"),
    ],
)
def test_load_refuses_a_malformed_fairness(change: Any, error: str) -> None:
    record = _finished().record()
    change(record)
    with pytest.raises(RecordError, match=error):
        load(record)


def test_replay_refuses_a_seed_that_is_not_the_committed_one() -> None:
    record = _finished().record()
    record["fairness"]["commitment"] = "0" * 64
    with pytest.raises(RecordError, match="not the SHA-256"):
        replay(record)


def test_a_fair_record_may_leave_its_decks_to_the_seeds() -> None:
    """Like a ``"seed"`` record: with the server seed revealed, the dealers and decks may go."""
    game = _finished(7)
    record = game.record()
    bare = {
        **record,
        "rounds": [
            {k: v for k, v in r.items() if k not in ("dealer", "deck")} for r in record["rounds"]
        ],
    }
    assert replay(bare).game.record() == record
