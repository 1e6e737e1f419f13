"""Rule variants: the frozen :class:`Rules` value and its named presets."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

STRAIGHTS = ("no_two", "wrap", "to_two")
FLUSH_ORDERS = ("high_card", "suit_first")
SCORINGS = ("paper", "hk")
OPENINGS = ("3D_must_play", "3D_leads_free", "3D_single")


def straight_shapes(straights: str) -> tuple[tuple[int, ...], ...]:
    """The rank windows (ranks 0..12: 3 .. 2) that make a straight under ``straights``, lowest
    first: a straight's shape index orders straights before its top card does.

    >>> straight_shapes("wrap")[-2:]  # 2-3-4-5-6 and A-2-3-4-5, the highest two
    ((12, 0, 1, 2, 3), (11, 12, 0, 1, 2))
    """
    if straights not in STRAIGHTS:
        raise ValueError(f"straights must be one of {STRAIGHTS}; got {straights!r}")
    shapes = [tuple(range(low, low + 5)) for low in range(8)]  # 34567 .. TJQKA (8 shapes; no 2)
    if straights == "to_two":
        shapes.append((8, 9, 10, 11, 12))  # J Q K A 2
    elif straights == "wrap":
        shapes.append((12, 0, 1, 2, 3))  # 2 3 4 5 6
        shapes.append((11, 12, 0, 1, 2))  # A 2 3 4 5
    return tuple(shapes)


RULE_MEANINGS: dict[str, dict[Any, str]] = {
    "straights": {
        "no_two": "a 2 is never in a straight (3-4-5-6-7 up to T-J-Q-K-A)",
        "wrap": "also 2-3-4-5-6 and A-2-3-4-5, ranked above T-J-Q-K-A",
        "to_two": "also J-Q-K-A-2, the highest straight",
    },
    "flush_order": {
        "high_card": "flushes compare by their highest card",
        "suit_first": "flushes compare by suit first, then by their highest card",
    },
    "four_card_plays": {
        False: "no four-card plays",
        True: "four-card plays: two pairs and four of a kind",
    },
    "five_card_quads": {
        True: "four of a kind with any fifth card is a five-card hand",
        False: "four of a kind with a fifth card is not a five-card hand",
    },
    "scoring": {
        "paper": "each loser scores minus the cards left in hand; the winner the sum of their losses",
        "hk": "Hong Kong scoring: a loser's cards count double from 10 left and triple at 13",
    },
    "opening": {
        "3D_must_play": "the holder of the 3 of diamonds opens with a play that contains it",
        "3D_leads_free": "the holder of the 3 of diamonds opens with any play",
        "3D_single": "the holder of the 3 of diamonds opens with that card alone",
    },
    "lone_triples": {
        True: "three of a kind is a play on its own",
        False: "three of a kind is not a play on its own (only inside a full house)",
    },
    "pass_locks": {
        False: "a player who passed may play again if the trick comes back round (soft pass)",
        True: "a player who passes may not play again until the trick ends (pass locks them out)",
    },
}
"""What each value of each :class:`Rules` option means, in plain words (``big2 rules`` prints them)."""


@dataclass(frozen=True)
class Rules:
    """A Big 2 rule set. ``Rules()`` is the paper's default; every field is validated.

    Attributes:
        straights: ``"no_two"`` (default): the eight straights 3-4-5-6-7 .. T-J-Q-K-A,
            a 2 is never in a straight. ``"wrap"``: also 2-3-4-5-6 and A-2-3-4-5,
            ranked above T-J-Q-K-A in that order. ``"to_two"``: also J-Q-K-A-2, the
            highest straight. Within one shape straights compare by highest card id.
        flush_order: ``"high_card"`` (default): flushes compare by highest card id.
            ``"suit_first"``: by suit first, then highest card id.
        four_card_plays: ``False`` (default). ``True`` adds four-card plays: two pair
            (compared by the highest card of the higher pair) and four of a kind
            (compared by rank, beats any two pair).
        five_card_quads: ``True`` (default): four of a kind plus any kicker is a
            five-card hand. ``False``: it is not (four of a kind is then only a
            four-card play, if those are on).
        scoring: ``"paper"`` (default): each loser scores minus their cards left, the
            winner the sum. ``"hk"``: a loser's cards count 1x when 9 or fewer, 2x for
            10-12 and 3x for 13; the winner gets the sum.
        opening: ``"3D_must_play"`` (default): the holder of 3D leads and the opening
            play must contain 3D. ``"3D_leads_free"``: the holder of 3D leads any
            combination. ``"3D_single"``: the holder of 3D must open with 3D alone.
        lone_triples: ``True`` (default): three of a kind is a three-card play. ``False``:
            it is not (a triple then appears only inside a full house); the action index
            keeps its triple actions, never legal.
        pass_locks: ``False`` (default, the soft pass): a player who passed may play again
            if the trick comes back round to them. ``True``: a player who passes is locked
            out until the trick ends; on their later turns in that trick pass is the only
            legal play, so the turn order and the trick's end (three passes in a row) are
            unchanged.

    Examples:
        >>> Rules() == Rules.preset("paper")
        True
        >>> Rules(straights="wrap").straights
        'wrap'
        >>> Rules(scoring="bogus")
        Traceback (most recent call last):
        ...
        ValueError: Rules.scoring must be one of 'paper', 'hk'; got 'bogus'
    """

    straights: str = "no_two"
    flush_order: str = "high_card"
    four_card_plays: bool = False
    five_card_quads: bool = True
    scoring: str = "paper"
    opening: str = "3D_must_play"
    lone_triples: bool = True
    pass_locks: bool = False

    PRESETS: ClassVar[tuple[str, ...]] = ("paper", "charlesworth")

    def __post_init__(self) -> None:
        for name, allowed in (
            ("straights", STRAIGHTS),
            ("flush_order", FLUSH_ORDERS),
            ("scoring", SCORINGS),
            ("opening", OPENINGS),
        ):
            value = getattr(self, name)
            if value not in allowed:
                listed = ", ".join(repr(a) for a in allowed)
                raise ValueError(f"Rules.{name} must be one of {listed}; got {value!r}")
        for name in ("four_card_plays", "five_card_quads", "lone_triples", "pass_locks"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ValueError(f"Rules.{name} must be True or False; got {value!r}")

    @classmethod
    def preset(cls, name: str) -> "Rules":
        """A named rule set: ``"paper"`` (the default) or ``"charlesworth"``.

        ``"charlesworth"`` is the rule set of the best-known public Big 2 PPO agent:
        four-card plays on, no five-card quads, straights up to J-Q-K-A-2, and the
        holder of 3D opens with 3D alone.
        """
        if name == "paper":
            return cls()
        if name == "charlesworth":
            return cls(
                four_card_plays=True,
                five_card_quads=False,
                straights="to_two",
                opening="3D_single",
            )
        raise ValueError(f"unknown rules preset {name!r}; allowed: {', '.join(map(repr, cls.PRESETS))}")

    @classmethod
    def coerce(cls, rules: "Rules | str | Mapping[str, Any] | None") -> "Rules":
        """Accept a ``Rules``, a preset name, a dict of keywords, or ``None`` (the default)."""
        if rules is None:
            return cls()
        if isinstance(rules, Rules):
            return rules
        if isinstance(rules, str):
            return cls.preset(rules)
        if isinstance(rules, Mapping):
            return cls.from_dict(rules)
        raise ValueError(
            f"rules must be a Rules, a preset name {cls.PRESETS} or a dict of Rules keywords; got {rules!r}"
        )

    def explain(self) -> list[str]:
        """Each option of this rule set with what it means, one plain line each.

        >>> Rules().explain()[0]
        'straights no_two: a 2 is never in a straight (3-4-5-6-7 up to T-J-Q-K-A)'
        """
        return [f"{name} {value}: {RULE_MEANINGS[name][value]}" for name, value in self.to_dict().items()]

    def to_dict(self) -> dict[str, Any]:
        """The rule set as a plain dict (JSON-serialisable)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Rules":
        """Build from a dict of keywords; unknown keys raise ``ValueError``."""
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - fields)
        if unknown:
            raise ValueError(f"unknown Rules keyword(s) {unknown}; allowed: {sorted(fields)}")
        return cls(**dict(data))

    def to_json(self) -> str:
        """The rule set as a JSON string."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Rules":
        """Inverse of :meth:`to_json`."""
        return cls.from_dict(json.loads(text))
