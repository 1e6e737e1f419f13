"""The search over a network (:mod:`agents.net_search`): rollouts, the deviation rule, what it may read."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.net_search import NetworkRollouts, NetworkSearch  # noqa: E402
from big2_env.players.dealers import UniformDealer  # noqa: E402
from big2_env.players.determinized import parse_budget  # noqa: E402
from big2_env.players.public import PublicState, public_state  # noqa: E402
from big2_env import Game, Rules, evaluate  # noqa: E402
from big2_env.errors import LoadError  # noqa: E402
from big2_env.evaluation.loading import load_agent  # noqa: E402
from big2_env.observations.decision import Decision, PolicyObservation  # noqa: E402


def _mask(cards) -> int:
    return sum(1 << c for c in cards)


def _search(budget=24, **kwargs) -> NetworkSearch:
    return NetworkSearch.from_spec("pretrained-charlesworth", rules="charlesworth", budget=budget, seed=3, **kwargs)


def test_budgets_parse_and_bad_ones_are_refused():
    assert parse_budget("0.25s") == (None, 0.25) and parse_budget(0.1) == (None, 0.1)
    assert parse_budget(64) == (64, None) and parse_budget("64") == (64, None)
    for bad in (0, -1, "fast", True, "0s", 1e6):
        with pytest.raises(ValueError, match="budget must be"):
            parse_budget(bad)
    for kwargs, message in [({"top_k": 0}, "top_k"), ({"deals": 0}, "deals"), ({"margin": -1}, "margin")]:
        with pytest.raises(ValueError, match=message):
            _search(**kwargs)


def test_the_deviation_rule_leaves_the_blueprint_only_for_a_clear_paired_gain():
    search = _search(margin=2.0)
    # candidate 1 is the blueprint; candidate 0 beats it by 1 point on every deal: a clear gain
    clear = np.array([[3.0, 2.0], [1.0, 0.0], [-2.0, -3.0], [5.0, 4.0]])
    assert search._decide(clear, 1)[0] == 0
    # candidate 0's mean is higher, but the paired gain is noise: +8 on one deal, -2 on three
    noisy = np.array([[10.0, 2.0], [-2.0, 0.0], [-2.0, 0.0], [-2.0, 0.0]])
    choice, gain, error = search._decide(noisy, 1)
    assert choice == 1 and gain == pytest.approx(0.5) and gain < 2 * error
    assert _search(margin=0.0)._decide(noisy, 1)[0] == 0  # margin 0: the best mean
    # the blueprint best: kept, whatever the margin
    assert search._decide(np.array([[0.0, 1.0], [0.0, 2.0]]), 1) == (1, 0.0, 0.0)


def _opened(seed: int, moves: int) -> tuple[Game, list[int], list[int]]:
    """A game of his rules after ``moves`` smallest plays: the game, its starting hands and its moves (masks)."""
    game = Game("charlesworth", seed=seed)
    start = [_mask(h) for h in game.hands]
    for _ in range(moves):
        game.play_index(0)
    return game, start, [_mask(p) for _, p in game.history]


def test_rollouts_play_every_game_to_its_end_with_the_candidates_first():
    game, start, moves = _opened(4, 3)
    rollouts = NetworkRollouts(_search().network.model, "charlesworth")
    decision = Decision(game)
    actions = decision.actions  # every legal action of the player on move, one game each
    scores = rollouts.play(np.array([start] * len(actions)), game.history[0][0], moves, actions)
    assert scores.shape == (len(actions), 4) and (scores.sum(axis=1) == 0).all()
    again = rollouts.play(np.array([start] * len(actions)), game.history[0][0], moves, actions)
    assert (again == scores).all()  # the argmax network on the same deal: the same games


def _extended(game: Game) -> PolicyObservation:
    return PolicyObservation(Decision(game), extended=True)


def _swapped(game: Game, rng: np.random.Generator) -> Game:
    """A copy of ``game`` with the cards the player on move cannot see shuffled between the other hands (each
    keeps its count): the same observation for the player on move, other hidden cards."""
    player = game.current_player
    others = [(player + k) % 4 for k in (1, 2, 3)]
    pool = [c for s in others for c in game.hand(s)]
    rng.shuffle(pool)
    hands, start = list(game.hands), 0
    for s in others:
        hands[s] = tuple(sorted(pool[start:start + game.cards_left(s)]))
        start += game.cards_left(s)
    swapped = game.copy()
    swapped._hand_masks = [_mask(h) for h in hands]
    return swapped


@pytest.mark.parametrize("seed", [0, 1])
def test_the_search_decides_from_the_observation_alone(seed):
    """Moving the cards it cannot see between the other hands never changes its decision."""
    rng = np.random.default_rng(seed)
    game = Game("charlesworth", seed=seed)
    searched = 0
    while not game.is_over and searched < 3:
        obs = _extended(game)
        if len(obs["candidate_actions"]) > 2:
            other = _extended(_swapped(game, rng))
            np.testing.assert_array_equal(obs["observation"], other["observation"])
            first, second = _search(), _search()
            assert first.act(obs) == second.act(other)
            assert first.last is not None and first.last == second.last
            searched += 1
        game.play_index(int(rng.integers(len(game.legal_plays()))))
    assert searched == 3


def test_the_spec_loads_and_plays_legal_moves_counting_its_departures():
    search = load_agent("search-net@16", rules="paper", seed=1)
    assert isinstance(search, NetworkSearch) and search.network.name == "pretrained" and search.rollouts == 16
    result = evaluate(search, "smart", n_games=2, seed=5, rules="paper", progress=False)
    assert result.n_games == 2 and search.stats.decisions > 0 and search.stats.rollouts > 0
    assert 0 <= search.stats.departures <= search.stats.searched <= search.stats.decisions
    assert len(search.stats.gains) == search.stats.departures and all(g > 0 for g in search.stats.gains)
    house = load_agent("search-net@8", rules=Rules(pass_locks=True, lone_triples=False), seed=1)
    evaluate(house, "greedy", n_games=2, seed=6, rules=Rules(pass_locks=True, lone_triples=False), progress=False)
    for bad in ("search-net:", "search-net@", "search-net@0", "search-net:missing.pt"):
        with pytest.raises(LoadError):
            load_agent(bad)


def _position_after(moves: int, seed: int = 2):

    game = Game("charlesworth", seed=seed)
    while (len(game.history) < moves or len(game.legal_plays()) < 3) and not game.is_over:
        game.play_index(len(game.legal_plays()) // 2)  # not always the smallest play: some moves had a choice
    assert not game.is_over
    obs = _extended(game)
    return obs, public_state(obs)


def test_the_web_tables_insight_shows_the_searched_candidates_and_a_forced_move_shows_none():
    from big2_env.web.tables import insight

    game = Game("charlesworth", seed=2)
    search = _search()
    while True:
        obs = _extended(game)
        if len(obs["candidate_actions"]) > 2:
            break
        game.play_index(0)
    action = search.act(obs)
    shown = insight(search, obs.decision, obs, action)
    assert shown is not None and shown["kind"] == "search"
    assert {tuple(row["cards"]) for row in shown["candidates"]} == {
        tuple(obs.decision.require_entry(a, "")[1]) for a in search.last["candidates"]}
    assert [row["mean"] for row in shown["candidates"]] == sorted(search.last["means"], reverse=True)
    assert all(row["visits"] == search.last["deals"] for row in shown["candidates"])
    while len(_extended(game)["candidate_actions"]) != 1:  # on to a move with one legal play
        game.play_index(0)
    forced = _extended(game)
    search.act(forced)
    assert search.last is None and search.last_stats is None


def test_a_search_leaves_torchs_thread_count_as_the_caller_set_it():
    """The rollouts' and the opponent models' compiled loops run on numba's threads; with numba's OpenMP
    layer a parallel loop resets OpenMP's thread count, torch's included. A process that set torch to
    one thread (two searches side by side on two cores) keeps one (agents.net_search.threads_kept;
    without it, on a machine of two cores or more, the count came back as numba's)."""
    import torch

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        search = load_agent("search-net@8", rules="charlesworth", seed=2)  # his view: the rollouts and opponent models
        evaluate(search, "greedy", n_games=1, seed=4, rules="charlesworth", progress=False)
        assert search.stats.searched > 0 and torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("shape", [(1, 1695), (7, 1695), (3, 5), (0, 1695)])
def test_legal_cells_are_numpys_nonzero(shape):
    from agents.net_search import _legal_cells

    masks = np.random.default_rng(shape[0]).random(shape) < 0.05
    masks[:, -1] |= shape[0] % 2 == 1  # the last column too, where a flat index meets the next row
    rows, cols = _legal_cells(masks)
    expected = np.nonzero(masks)
    assert rows.tolist() == expected[0].tolist() and cols.tolist() == expected[1].tolist()


# ---------------------------------------------------------------- opponent models (opponent_models)
MODELS = ("network", "smart", "greedy", "random")


@pytest.mark.parametrize("kind", ["smart", "greedy"])
def test_rollouts_with_a_heuristic_in_every_seat_play_the_heuristics_game(kind):
    """Every seat given Smart (or Greedy): the rollout is the game the Python heuristic plays from the position."""
    from big2_env.observations import observation_dict
    from big2_env.observations.paper import PASS_ACTION, action_cards
    from big2_env.players import GreedyPolicy, SmartPolicy

    rules = Rules.preset("charlesworth")
    policy = SmartPolicy(rules) if kind == "smart" else GreedyPolicy(rules)
    rollouts = NetworkRollouts(_search().network.model, rules)
    for seed in range(3):
        game = Game(rules, seed=seed)
        start = [_mask(h) for h in game.hands]
        for _ in range(5 + seed):
            game.play_index(len(game.legal_plays()) - 1)
        scores = rollouts.play(np.array([start, start]), game.history[0][0], [_mask(p) for _, p in game.history],
                               models=[kind] * 4)
        while not game.is_over:
            action = policy.act(observation_dict(game))
            game.play(() if action == PASS_ACTION else action_cards(action, game.hand(game.current_player)))
        assert scores.tolist() == [game.scores()] * 2
        assert rollouts.decisions == 0  # the network never asked


def test_rollouts_with_random_seats_are_legal_seeded_games_and_network_seats_are_the_plain_rollouts():
    game, start, moves = _opened(6, 4)
    model = _search().network.model

    def play(models, seed=0):
        rollouts = NetworkRollouts(model, "charlesworth", sample=True, rng=np.random.default_rng(seed))
        return rollouts.play(np.array([start] * 8), game.history[0][0], moves, models=models)

    mixed = play(["network", "random", "smart", "random"])
    assert (mixed.sum(axis=1) == 0).all() and (mixed == play(["network", "random", "smart", "random"])).all()
    assert (play(["network"] * 4) == play(None)).all()
    for bad in (["network"] * 3, ["network", "fast", "smart", "random"], "network"):
        with pytest.raises(ValueError, match="one of network, smart, greedy, random for each of the 4 seats"):
            play(bad)


def test_opponent_models_are_checked_and_default_to_every_model_where_the_network_can_weigh_moves():
    assert _search().opponent_models == MODELS  # his design: every model
    card_aware = NetworkSearch.from_spec("pretrained-paper", rules="paper", budget=8)
    assert card_aware.opponent_models == ("network",)  # no head to weigh the others' moves with
    for bad in (("smart", "greedy"), ("network", "fast"), ("network", "network"), "network", ()):
        with pytest.raises(ValueError, match="opponent_models must be None .the default. or list distinct models"):
            _search(opponent_models=bad)
    # any order names the same models, kept in the order the scores' columns are read (the network first)
    assert _search(opponent_models=("random", "smart", "network")).opponent_models == ("network", "smart", "random")
    with pytest.raises(ValueError, match="Charlesworth's design"):
        NetworkSearch.from_spec("pretrained-paper", rules="paper", opponent_models=MODELS)


def test_each_models_score_is_the_sum_of_the_logs_of_its_moves_probabilities_averaged_over_the_deals():
    """Against an independent computation on the Python engine, on the same deals: Smart and Greedy give their
    move 0.95 and every other legal move a share of 0.05; Random is uniform; a forced move has probability 1."""
    from agents import net_search
    from big2_env.engine.cards import mask_to_cards
    from big2_env.observations import observation_dict
    from big2_env.players import GreedyPolicy, SmartPolicy

    rules = Rules.preset("charlesworth")
    _, position = _position_after(14)
    search = _search(opponent_models=("network", "smart", "greedy", "random"))
    search.models_rng = np.random.default_rng(7)
    score = search.model_log_likelihoods(position)
    deals = UniformDealer.starting(position, np.random.default_rng(7)).deal(net_search.OPPONENT_DEALS)
    heuristics = {"smart": SmartPolicy(rules), "greedy": GreedyPolicy(rules)}
    expected = np.zeros((4, 3))
    by_move: list[list[list[float]]] = [[] for _ in position.history]  # per move, per deal: smart, greedy, random
    for hands in deals:
        game = Game.from_hands([mask_to_cards(int(h)) for h in hands], rules, current_player=position.opener, opening=True)
        for t, (seat, play) in enumerate(position.history):
            n = len(game.legal_plays())
            row = [1.0, 1.0, 1.0]
            if n > 1:
                obs = observation_dict(game)
                for j, kind in enumerate(("smart", "greedy")):
                    choice = heuristics[kind].act(obs)
                    chosen = Decision(game).actions.tolist().index(choice)
                    played = game.legal_plays()[chosen] if chosen < len(game.legal_plays()) else ()
                    row[j] = 0.95 if _mask(played) == _mask(play) else 0.05 / (n - 1)
                row[2] = 1.0 / n
            by_move[t].append(row)
            game.play(list(play))
    for t, (seat, _) in enumerate(position.history):
        if seat != 0:
            expected[seat] += np.log(np.mean(by_move[t], axis=0))
    np.testing.assert_allclose(score[:, 1:], expected, atol=1e-9)
    assert (score[0] == 0).all() and (score[1:, 0] < 0).any()


@pytest.mark.parametrize("option", [None, 1.0, 0.0])
def test_a_seat_moves_to_another_model_only_when_it_explains_the_moves_clearly_better(monkeypatch, option):
    from agents import net_search

    _, position = _position_after(14)
    extra = {} if option is None else {"opponent_switch": option}
    search = _search(opponent_models=MODELS, **extra)
    switch = net_search.OPPONENT_SWITCH_NATS if option is None else option
    assert search.opponent_switch == switch
    cases = [  # per seat: network, smart, greedy, random scores; the model it gets
        ([-10.0, -10.0 + switch - 0.1, -12.0, -11.0], "network"),  # Smart better, but not clearly
        ([-10.0, -10.0 + switch + 0.1, -12.0, -11.0], "smart"),
        ([-10.0, -9.0, -10.0 + switch + 1.5, -20.0], "greedy"),  # the better rule of the two
        ([-10.0, -10.0 + switch + 1, -12.0, -10.0 + 2 * switch], "smart"),  # Random not clearly better than Smart
        ([-30.0, -20.0, -20.0, -20.0 + switch + 0.1], "random"),  # clearly better than every rule and the network
    ]
    for scores, expected in cases:
        table = np.zeros((4, 4))
        table[1:] = scores
        monkeypatch.setattr(search, "model_log_likelihoods", lambda position, table=table: table)
        assert search.seat_models(position) == ("network",) + (expected,) * 3
    monkeypatch.setattr(search, "model_log_likelihoods", lambda position: None)
    assert search.seat_models(position) == ("network",) * 4


@pytest.mark.parametrize("switch", [-1.0, float("nan"), True, "3", None, 1e4])
def test_a_bad_opponent_switch_is_refused_naming_what_is_allowed(switch):
    with pytest.raises(ValueError, match=r"opponent_switch must be a number of nats in \[0, 1000\]"):
        _search(opponent_models=MODELS, opponent_switch=switch)


def test_an_opponent_switch_without_a_model_to_switch_to_is_refused():
    with pytest.raises(ValueError, match="opponent_switch=1.0 has no model to switch to"):
        _search(opponent_models=["network"], opponent_switch=1.0)
    with pytest.raises(ValueError, match="opponent_switch=0.0 has no model to switch to"):
        NetworkSearch.from_spec("pretrained-paper", rules="paper", budget=8, opponent_switch=0.0)  # the network alone
    assert _search(opponent_models=["network"]).opponent_switch == 3.0  # the default is no request


def test_opponent_models_where_every_seat_keeps_the_network_change_no_decision(monkeypatch):
    """The models are read with a generator of their own: where every seat keeps the network, the search's
    rollouts, values and decision are those it makes without them."""
    obs, _ = _position_after(16)
    plain = _search(opponent_models=["network"])
    modelled = _search(opponent_models=MODELS)
    monkeypatch.setattr(modelled, "model_log_likelihoods",
                        lambda position: np.tile([0.0, -1.0, -1.0, -1.0], (4, 1)))  # the network explains best
    assert plain.act(obs) == modelled.act(obs)
    assert plain.last == modelled.last and modelled.stats.opponent_seats == {"network": 3}


def test_opponent_models_read_each_heuristics_seats_mostly_as_that_heuristic_or_a_rule_and_play_legal_games():
    seen = {}
    for opponent in ("random", "greedy"):
        search = NetworkSearch.from_spec("pretrained", rules="paper", budget=32, seed=1, opponent_models=MODELS)
        result = evaluate(search, opponent, n_games=2, seed=3, rules="paper", progress=False)
        assert result.n_games == 2 and sum(search.stats.opponent_seats.values()) == 3 * search.stats.searched
        seen[opponent] = search.stats.opponent_seats
    # Greedy's seats: read as Greedy most often, never as Random; Random's: as Random far more often
    assert max(seen["greedy"], key=seen["greedy"].get) == "greedy" and seen["greedy"].get("random", 0) == 0
    assert seen["random"]["random"] >= 10


def test_every_drawn_deal_keeps_each_seats_played_cards_and_count():
    for moves in (6, 14):
        _, position = _position_after(moves)
        full = (1 << 52) - 1
        for row in UniformDealer.starting(position, np.random.default_rng(moves)).deal(40).tolist():
            assert row[0] | row[1] | row[2] | row[3] == full and sum(h.bit_count() for h in row) == 52  # a partition
            for seat in range(4):  # each seat: its played cards and as many more as it holds
                assert row[seat] & position.played_by[seat] == position.played_by[seat]
                assert (row[seat] & ~position.played_by[seat]).bit_count() == position.cards_left[seat]


def test_the_three_of_diamonds_stays_with_the_opener_who_has_not_played_it_in_every_deal():
    hand = tuple(c for c in range(52) if c not in (0, 5, 9, 20, 31, 44))  # 3D (card 0) and five others unseen
    position = PublicState(hand, None, None, 0, 0, (0, 0, 0, 0), (46, 2, 2, 2), False, history=((2, ()),))  # seat 2 opened
    deals = UniformDealer.starting(position, np.random.default_rng(0)).deal(200)
    assert (deals[:, 2] & 1 == 1).all() and not (deals[:, [1, 3]] & 1).any()  # seat 2 holds 3D and one more


def test_argmax_seats_play_the_networks_argmax_where_the_others_sample():
    game, start, moves = _opened(6, 4)
    model = _search().network.model

    def play(sample, seats=(), seed=0):
        rollouts = NetworkRollouts(model, "charlesworth", sample=sample, rng=np.random.default_rng(seed), argmax_seats=seats)
        return rollouts.play(np.array([start] * 16), game.history[0][0], moves)

    argmax = play(False)
    assert (play(True, (0, 1, 2, 3)) == argmax).all() and (play(True, (0, 1, 2, 3), seed=5) == argmax).all()
    assert (argmax == argmax[0]).all()  # the argmax network plays one game on one deal
    own = [play(True, (0,), seed) for seed in (0, 1)]
    assert (own[0] == play(True, (0,), 0)).all() and not (own[0] == own[1]).all()  # seeded, and the others sample
    for bad in ((4,), (-1,), "0", (0.5,)):
        with pytest.raises(ValueError, match="argmax_seats must list seats in 0..3"):
            NetworkRollouts(model, "charlesworth", sample=True, argmax_seats=bad)


def test_the_log_probabilities_of_a_views_legal_actions_are_a_softmax_over_them():
    _, position = _position_after(16)
    search = _search()
    seat_moves = [t for t, (seat, _) in enumerate(position.history) if seat != 0]
    deal = UniformDealer.starting(position, np.random.default_rng(0)).deal(1)
    views, masks, _ = search.rollout.games.history_views(deal, position.opener, [_mask(play) for _, play in position.history],
                                                         seat_moves)
    row = next(i for i in range(len(seat_moves)) if masks[0, i].sum() > 2)
    legal = np.flatnonzero(masks[0, row])
    v, m = np.repeat(views[0, row:row + 1], len(legal), axis=0), np.repeat(masks[0, row:row + 1], len(legal), axis=0)
    plain = search.rollout.log_probabilities(v, m, legal)
    assert np.exp(plain).sum() == pytest.approx(1.0)


def test_seat_networks_play_their_seats_and_are_checked():
    from agents.network import Big2Net, NetworkConfig, charlesworth_network
    from big2_env.players.charlesworth import PARAMETER_SHAPES

    game, start, moves = _opened(6, 4)
    model = _search().network.model
    rng = np.random.default_rng(0)
    other = charlesworth_network([rng.normal(size=s).astype(np.float32) * 0.05 for s in PARAMETER_SHAPES])

    def play(nets=None):
        rollouts = NetworkRollouts(model, "charlesworth", seat_networks=nets)  # argmax: deterministic games
        return rollouts.play(np.array([start] * 4), game.history[0][0], moves)

    plain = play()
    assert (play({1: model, 2: model, 3: model}) == plain).all()  # the same network in those seats: the same games
    assert not (play({1: other, 2: other, 3: other}) == plain).all()
    for bad in ({4: other}, {1: "his"}, {1: Big2Net(NetworkConfig())}):
        with pytest.raises(ValueError, match="seat_networks must map seats in 0..3 to networks of Charlesworth's design"):
            play(bad)
