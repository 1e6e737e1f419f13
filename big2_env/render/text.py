"""A readable text table of a game: trick, cards left, who is on move, and hands
shown only to the viewer (all hands are revealed once the game is over).

Example output (``viewer="current"``)::

    Big 2 | turn 5 | player_2 to move
    Trick: 8H 8S (pair) by player_1, 1 pass since
       seat       cards  hand
       player_0    11    (hidden)
       player_1    10    (hidden)
    >  player_2    13    3C 4H 6D 7C 7S 9H TD JH QS KC AD 2C 2S
       player_3    12    (hidden)
    Played so far: 4 cards
"""

from __future__ import annotations

from ..engine.cards import format_cards, format_play
from ..engine.combos import classify

OPENING_NOTES = {
    "3D_must_play": "the first play must contain 3D",
    "3D_leads_free": "any first play",
    "3D_single": "the first play is 3D alone",
}
"""The opening rule (``Rules.opening``) in a few words, for the table's header."""

Viewer = str | int | None


def _visible(viewer: Viewer, seat: int, game) -> bool:
    if game.is_over or viewer == "all":
        return True
    if viewer == "current":
        return seat == game.current_player
    if viewer is None or viewer == "none":
        return False
    return int(viewer) == seat


def check_viewer(viewer: Viewer) -> Viewer:
    """Validate a viewer: ``"current"``, ``"all"``, ``"none"``/``None`` or a seat 0..3."""
    if viewer in ("current", "all", "none", None):
        return viewer
    if isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < 4:
        return viewer
    raise ValueError(f"viewer must be 'current', 'all', 'none' or a seat 0..3; got {viewer!r}")


def render_table(game, viewer: Viewer = "current", names: list[str] | None = None) -> str:
    """The game as a text table. ``viewer`` picks whose hand is shown (see :func:`check_viewer`)."""
    names = names or [f"player_{i}" for i in range(4)]
    width = max(len(n) for n in names)
    lines = []
    if game.is_over:
        lines.append(f"Big 2 | turn {game.turn} | game over: {names[game.winner]} wins")
    else:
        lines.append(f"Big 2 | turn {game.turn} | {names[game.current_player]} to move")
    if game.trick is not None:
        combo = classify(game.trick, game.rules)
        kind = f" ({combo.name})" if combo else ""
        passes = f", {game.passes} pass{'es' if game.passes != 1 else ''} since" if game.passes else ""
        lines.append(f"Trick: {format_play(game.trick)}{kind} by {names[game.trick_player]}{passes}")
    elif game.is_opening:
        lines.append(f"Trick: none, {names[game.current_player]} opens ({OPENING_NOTES[game.rules.opening]})")
    elif not game.is_over:
        lines.append(f"Trick: none, {names[game.current_player]} leads")
    lines.append(f"   {'seat':<{width}}  cards  hand")
    scores = game.scores() if game.is_over else None
    for seat in range(4):
        marker = ">" if (not game.is_over and seat == game.current_player) else " "
        hand = game.hand(seat)
        shown = format_cards(hand) if _visible(viewer, seat, game) else "(hidden)"
        if scores is not None:
            shown = f"{shown or '-':<40} score {scores[seat]:+d}"
        lines.append(f"{marker}  {names[seat]:<{width}}  {len(hand):>4}   {shown}")
    played = bin(game.played_mask).count("1")
    lines.append(f"Played so far: {played} card{'s' if played != 1 else ''}")
    return "\n".join(lines)


def emit(render_mode: str | None, text: str) -> str | None:
    """What an env's ``render()`` does with its table: return it (``"ansi"``), print it
    (``"human"``), or warn that no render mode was chosen (``None``)."""
    if render_mode is None:
        import gymnasium

        gymnasium.logger.warn("You are calling render method without specifying any render mode.")
        return None
    if render_mode == "ansi":
        return text
    print(text + "\n")
    return None
