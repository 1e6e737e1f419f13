"""Search options compared on the same deals: one search seat against three copies of an opponent.

Every run with the same ``--games`` and ``--seed`` plays the same deals with the search in
the same seats and the same per-game seeds, so two option sets differ only by what the
options change (paired comparisons: much less noise than two independent evaluations).

``--variant`` swaps in a search that differs from the shipped one in how it deals or who
plays the opponents in its rollouts (benchmark devices, not options of the package: each
was measured and did not pay, or is an upper bound no player can reach):

* ``oracle``: every deal is the true hidden hands (what perfect card inference is worth);
* ``noisy-oracle:K``: the true hands with ``K`` random swaps of a card between two
  opponents in every deal (how right the deals must be for inference to pay);
* ``mcmc:BURN,THIN``: deals from a Markov chain over the deals the public cards allow,
  whose moves swap one card between two opponents and are accepted by the Metropolis
  rule on the move history's likelihood (:mod:`big2_env.players.beliefs`, the three models'
  mixture): ``BURN`` swaps from a pass-consistent deal, then ``THIN`` swaps between deals;
* ``model-rollouts``: in rollouts each opponent plays Smart, Greedy or a random move with
  the probabilities that the history gives its three models (the shipped search only
  tells Random from the rest).

    python experiments/scripts/search_options.py --opponent smart --games 150 --options '{"infer_opponents": 0}'
    python experiments/scripts/search_options.py --opponent smart --games 150 --options '{"pass_inference": 0.5}'
    python experiments/scripts/search_options.py --opponent smart --games 150 --variant oracle
    python experiments/scripts/search_options.py --opponent charlesworth:PATH --rules charlesworth --games 400 --variant oracle
    python experiments/scripts/search_options.py --opponent smart --games 150 --variant noisy-oracle:4
    python experiments/scripts/search_options.py --opponent smart --games 150 --variant mcmc:40,2
    python experiments/scripts/search_options.py --opponent greedy --games 150 --variant model-rollouts
    python experiments/scripts/search_options.py --opponent smart --games 150 --prior runs/distill
    python experiments/scripts/search_options.py --posterior 30
    python experiments/scripts/search_options.py --agreement 300 --seed 7 --options '{"budget": 64}'
    python experiments/scripts/search_options.py --leaf-value pretrained-default-recipe --positions 100

``--prior AGENT`` ranks the candidates (``prior_top``) by a network's probabilities instead of
Smart's score (a ``big2 train`` model file or run folder, ``pretrained``...): issue 12's test of
a learned prior inside the search, at the same budget (its forward pass added about 5% to
the time per decision, measured side by side). A learned rollout policy goes in ``--rollout AGENT``
(``pretrained``, a model file: every seat of every rollout plays from it, one batched forward pass
per step over the decision's deals and candidates, on the Python engine), e.g. ``--rollout
pretrained --options '{"budget": "0.25s"}'``.

``--posterior N`` plays no games: over ``N`` Smart-vs-Smart positions it measures how many
hidden cards the search's pass-consistent deals place right, and how many the history's
posterior itself does (long :class:`DealChain` runs): what any sampler could reach.

``--agreement N`` plays no games either: over ``N`` positions of Smart-vs-Smart games it
measures how often two searches with the same ``--options`` but different seeds choose the
same move: the most any network imitating the search can match it (issue 12's distillation).

``--leaf-value AGENT`` plays no games: over ``--positions`` Smart-vs-Smart positions it searches
every candidate on the same deals (``method="flat"``) twice, once by the rollouts and once by
the network's value at the leaves (``value_weight`` 1), and says how far the two agree: the
rank correlation of the candidates' means, how often they pick the same best candidate, and
how much a candidate's leaf value varies from deal to deal against its rollouts.

The README's paired figures come from it (150 games per run, seed 123, the default budget).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from big2_env import Game, Rules
from big2_env.players.beliefs import MODELS, game_course, model_posteriors, seat_log_likelihoods
from big2_env.engine.cards import mask_to_cards
from big2_env.observations.decision import Decision
from big2_env.observations.decision import PolicyObservation
from big2_env.observations.extended import history_moves
from big2_env.evaluation.loading import load_agent
from big2_env.players.base import policy_actions
from big2_env.players.greedy import greedy_choice
from big2_env.players.registry import make_policy
from big2_env.players.search import NoisyOpponents, PublicState, SearchPolicy, public_state
from big2_env.checks import is_int

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout: the deals in Python
from tests.reference.dealers import deal_consistent  # noqa: E402


class OracleSearch(SearchPolicy):
    """The search, told the true hidden hands: every deal is the real one, after ``swaps``
    random swaps of a card between two opponents (0: exactly the real one)."""

    true_hands: list[int] = []
    swaps = 0

    def _deal(self, state: PublicState) -> list[int]:
        hands = list(self.true_hands)
        seats = [s for s in (1, 2, 3) if hands[s]]
        for _ in range(self.swaps if len(seats) > 1 else 0):
            a, b = self.rng.choice(seats, 2, replace=False)
            swap_card(hands, int(a), int(b), self.rng)
        return hands


def placed_right(hands: Sequence[int], truth: Sequence[int]) -> int:
    """How many of the opponents' cards a deal puts in the seat that really holds them."""
    return sum((hands[s] & truth[s]).bit_count() for s in (1, 2, 3))


def swap_card(hands: list[int], a: int, b: int, rng: np.random.Generator) -> int:
    """Swap a random card of seat ``a`` with a random card of seat ``b`` in place; return the swap's bitmask."""
    x = mask_to_cards(hands[a])[rng.integers(hands[a].bit_count())]
    y = mask_to_cards(hands[b])[rng.integers(hands[b].bit_count())]
    swap = (1 << x) | (1 << y)
    hands[a] ^= swap
    hands[b] ^= swap
    return swap


class DealChain:
    """A Metropolis chain over the deals of the unseen cards: each step swaps a random card of
    an opponent who has moved with one of another opponent and accepts by the ratio of the
    history's likelihoods (the seats' mixtures over ``models``, uniform prior); only the two
    seats touched are replayed, each distinct hand once."""

    def __init__(self, state: PublicState, course: Sequence, rules: Any, rng: np.random.Generator,
                 models: Sequence[str] = MODELS, tremble: float = 0.05) -> None:
        self.state, self.course, self.rules, self.rng = state, course, rules, rng
        self.models, self.tremble = tuple(models), tremble
        movers = {m.seat for m in course}
        self._memo: dict[tuple[int, int], float] = {}
        self.hands = deal_consistent(state, rng, rules, 1.0)
        self.log_likelihood = [0.0] + [self.seat_log_likelihood(s, self.hands[s]) for s in (1, 2, 3)]
        self.free = [s for s in (1, 2, 3) if self.hands[s]]
        self.movers = [s for s in self.free if s in movers]
        self.steps = self.accepted = 0

    def seat_log_likelihood(self, seat: int, hand: int) -> float:
        key = (seat, hand)
        if key not in self._memo:
            start = hand | self.state.played_by[seat]
            ll = seat_log_likelihoods(self.course, seat, start, self.rules, self.models, self.tremble)
            top = max(ll)
            self._memo[key] = top + math.log(sum(math.exp(x - top) for x in ll) / len(ll)) if top > -math.inf else top
        return self._memo[key]

    def step(self) -> None:
        if len(self.free) < 2 or not self.movers:
            return
        self.steps += 1
        a = self.movers[self.rng.integers(len(self.movers))]
        others = [s for s in self.free if s != a]
        b = others[self.rng.integers(len(others))]
        hands = list(self.hands)
        swap_card(hands, a, b, self.rng)
        new_a, new_b = self.seat_log_likelihood(a, hands[a]), self.seat_log_likelihood(b, hands[b])
        new, old = new_a + new_b, self.log_likelihood[a] + self.log_likelihood[b]
        if new == -math.inf:
            return
        if old == -math.inf or new >= old or self.rng.random() < math.exp(new - old):
            self.hands = hands
            self.log_likelihood[a], self.log_likelihood[b] = new_a, new_b
            self.accepted += 1


class ChainSearch(SearchPolicy):
    """The search with its deals drawn from a :class:`DealChain` once an opponent has moved."""

    burn, thin = 40, 2

    def act(self, obs: Any) -> int:
        self._chain: DealChain | None = None
        return super().act(obs)

    def _deal(self, state: PublicState) -> list[int]:
        if self._course is None:
            return super()._deal(state)
        if self._chain is None:
            self._chain = DealChain(state, self._course, self.rules, self.rng, self.opponent_models, self.tremble)
            for _ in range(self.burn):
                self._chain.step()
        for _ in range(self.thin):
            self._chain.step()
        return list(self._chain.hands)


class ModelOpponents(NoisyOpponents):
    """Each opponent seat plays a random legal move with probability ``seat_noise[seat]``,
    Greedy's move with probability ``seat_greedy[seat]``, else the base policy's."""

    def __init__(self, base: Any, seed: int | None = None) -> None:
        super().__init__(base, seed)
        self.seat_greedy = [0.0] * 4

    def choose_batch(self, games: Sequence[Game]) -> list[int]:
        picks: list[int | None] = []
        for game in games:
            entries = game.legal_entries()
            seat, pick = game.current_player, None
            if seat and len(entries) > 1:
                u = self.rng.random()
                if u < self.seat_noise[seat]:
                    pick = int(self.rng.integers(len(entries)))
                elif u < self.seat_noise[seat] + self.seat_greedy[seat]:
                    pick = greedy_choice([e[1] for e in entries], game.rules)
            picks.append(pick)
        rest = [g for g, p in zip(games, picks) if p is None]
        chosen = iter(self.base.choose_batch(rest) if rest else [])
        return [p if p is not None else next(chosen) for p in picks]


class ModelRolloutSearch(SearchPolicy):
    """The search with :class:`ModelOpponents` in its rollouts, set from the history's model posteriors."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._noisy = self._playing = ModelOpponents(self.rollout)

    def _seat_noise(self, state: PublicState) -> list[float]:
        assert isinstance(self._noisy, ModelOpponents)
        self._noisy.seat_greedy = [0.0] * 4
        if self._course is None or not self.infer_opponents:
            return [0.0] * 4
        deals = [self._deal(state) for _ in range(self.infer_opponents)]
        posteriors = model_posteriors(deals, state.played_by, self._course, self.rules, MODELS, tremble=self.tremble)
        self._noisy.seat_greedy = [0.0] + [float(posteriors[s, MODELS.index("greedy")]) for s in (1, 2, 3)]
        return [0.0] + [float(posteriors[s, MODELS.index("random")]) for s in (1, 2, 3)]


def make_search(variant: str, options: dict) -> SearchPolicy:
    """The search of ``variant`` (see the module docstring) with ``options``."""
    name, _, argument = variant.partition(":")
    if name in ("plain", "oracle") and not argument:
        return (OracleSearch if name == "oracle" else SearchPolicy)(seed=0, **options)
    if name == "noisy-oracle" and argument.isdigit():
        search = OracleSearch(seed=0, **options)
        search.swaps = int(argument)
        return search
    if name == "mcmc" and len(argument.split(",")) == 2 and all(x.isdigit() for x in argument.split(",")):
        search = ChainSearch(seed=0, **options)
        search.burn, search.thin = (int(x) for x in argument.split(","))
        return search
    if name == "model-rollouts" and not argument:
        return ModelRolloutSearch(seed=0, **options)
    raise ValueError(f"unknown variant {variant!r}; allowed: plain, oracle, noisy-oracle:K, mcmc:BURN,THIN, model-rollouts")


def check_positions(positions: Any) -> None:
    """``--posterior`` and ``--agreement`` count positions: a positive int."""
    if not is_int(positions, 1, numpy=False):
        raise ValueError(f"positions must be an int >= 1; got {positions!r}")


def smart_position(rng: np.random.Generator, smart: Any, earliest: int, latest: int) -> Game | None:
    """A fresh deal played by ``smart`` in every seat up to a turn drawn from ``earliest`` to
    ``latest - 1``, then on to the first decision with a choice; ``None`` if the game ends first."""
    game = Game(None, seed=int(rng.integers(2**31)))
    stop = int(rng.integers(earliest, latest))
    while game.winner is None and (game.turn < stop or len(game.legal_entries()) == 1):
        decision = Decision(game)
        game._apply(decision.require_entry(smart.act(PolicyObservation(decision)), "smart"))
    return None if game.winner is not None else game


def posterior_accuracy(positions: int, seed: int = 0, burn: int = 1000, samples: int = 100, thin: int = 20) -> dict:
    """How many hidden cards the deals place right at decision points of Smart-vs-Smart games
    (one per game, after 8-29 moves, where the player on move has a choice): pass-consistent
    deals (the search's proposals) against long :class:`DealChain` runs (``burn`` swaps, then
    ``samples`` deals ``thin`` swaps apart), which sample the history's posterior itself."""
    check_positions(positions)
    rng = np.random.default_rng(seed)
    smart = make_policy("smart")
    proposal, posterior = [], []
    while len(posterior) < positions:
        game = smart_position(rng, smart, 8, 30)
        if game is None:
            continue
        obs = PolicyObservation(Decision(game), extended=True)
        state = public_state(obs)
        me = game.current_player
        truth = [game._hand_masks[(me + k) % 4] for k in range(4)]

        def right(hands: list[int]) -> float:
            return placed_right(hands, truth) / state.unseen_mask.bit_count()

        proposal.append(np.mean([right(deal_consistent(state, rng, Rules(), 1.0)) for _ in range(samples)]))
        chain = DealChain(state, game_course(history_moves(obs["history"])), Rules(), rng)
        for _ in range(burn):
            chain.step()
        placed = []
        for _ in range(samples):
            for _ in range(thin):
                chain.step()
            placed.append(right(chain.hands))
        posterior.append(np.mean(placed))
    return {"positions": positions, "seed": seed, "chain_swaps": burn + samples * thin,
            "proposal_accuracy": float(np.mean(proposal)), "posterior_accuracy": float(np.mean(posterior))}


def learned_prior(spec: str) -> Any:
    """The agent ``spec`` names (:func:`~big2_env.evaluation.loading.load_agent`), as a search prior:
    it must give ``probabilities(obs)``, as a network does."""
    prior = load_agent(spec, what="--prior", seed=0)
    if not callable(getattr(prior, "probabilities", None)):
        raise ValueError(f"--prior must name a network (a model file, run folder or pretrained); {spec!r} gives no probabilities")
    return prior


def leaf_value_agreement(spec: str, positions: int, options: dict, seed: int = 0) -> dict:
    """How far a network's value at the search's leaves agrees with the rollouts, over ``positions``
    decision points (after 0-39 moves of a Smart-vs-Smart game, with at least three candidates).
    Both searches are flat (every candidate on the same deals) and seeded alike, so they see the
    same deals: the rollouts' means against the leaf values' means, per position."""
    import big2_env.players.kernels.rollouts as core_rollouts

    check_positions(positions)
    network = learned_prior(spec)
    rng = np.random.default_rng(seed)
    smart = make_policy("smart")
    settings = {"method": "flat", "prior_top": 0, **options}
    rollouts, leaves = SearchPolicy(seed=0, **settings), SearchPolicy(seed=0, value=network, value_weight=1.0, **settings)
    recorded: list[np.ndarray] = []  # each call's (deals, candidates) values, rollouts or leaves
    play_outs, leaf_values = core_rollouts.play_outs, leaves._leaf_values

    def recording_play_outs(*args: Any) -> None:
        play_outs(*args)
        recorded.append(args[8].copy())  # its values array

    def recording_leaf_values(*args: Any) -> np.ndarray:
        recorded.append(leaf_values(*args))
        return recorded[-1]

    core_rollouts.play_outs, leaves._leaf_values = recording_play_outs, recording_leaf_values  # type: ignore[method-assign]
    correlations, same, spread = [], 0, {"rollouts": [], "leaves": []}
    done = 0
    try:
        while done < positions:
            game = smart_position(rng, smart, 0, 40)
            if game is None or len(game.legal_entries()) < 3:
                continue
            obs = PolicyObservation(Decision(game), extended=True)
            for search, key in ((rollouts, "rollouts"), (leaves, "leaves")):
                search.seed(done)
                recorded.clear()
                search.act(obs)
                values = np.concatenate(recorded)  # flat: one round, every candidate on every deal
                spread[key].append(float(values.std(axis=0).mean()))
            a, b = rollouts.last_stats["means"], leaves.last_stats["means"]
            actions = sorted(a)
            correlations.append(rank_correlation([a[x] for x in actions], [b[x] for x in actions]))
            same += max(actions, key=lambda x: a[x]) == max(actions, key=lambda x: b[x])
            done += 1
    finally:
        core_rollouts.play_outs = play_outs

    return {
        "network": spec, "positions": positions, "seed": seed, "options": options,
        "rank_correlation": float(np.mean(correlations)), "same_best": same / positions,
        "deal_sd_rollouts": float(np.mean(spread["rollouts"])), "deal_sd_leaves": float(np.mean(spread["leaves"])),
    }


def rank_correlation(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation (ties share their mean rank; 0 where either side is constant).

    >>> rank_correlation([1, 2, 3], [10, 30, 20]), rank_correlation([1, 1, 2], [5, 5, 9])
    (0.5, 1.0)
    """
    def ranks(values: Sequence[float]) -> np.ndarray:
        array = np.asarray(values, dtype=float)
        order = np.argsort(array, kind="stable")
        out = np.empty(len(array))
        out[order] = np.arange(len(array))
        for value in np.unique(array):  # ties: their mean rank
            out[array == value] = out[array == value].mean()
        return out

    a, b = ranks(x), ranks(y)
    if a.std() == 0 or b.std() == 0:
        return 0.0
    return float(np.corrcoef(a, b)[0, 1])


def self_agreement(positions: int, options: dict, seed: int = 0) -> dict:
    """How often two searches with ``options`` and different seeds pick the same move, over
    ``positions`` decision points (after 0-39 moves of a Smart-vs-Smart game, where the player on
    move has a choice): the ceiling on how often any imitation of the search can match it."""
    check_positions(positions)
    rng = np.random.default_rng(seed)
    smart = make_policy("smart")
    first, second = SearchPolicy(seed=1, **options), SearchPolicy(seed=2, **options)
    same = done = 0
    while done < positions:
        game = smart_position(rng, smart, 0, 40)
        if game is None:
            continue
        obs = PolicyObservation(Decision(game), extended=True)
        first.seed(2 * done)
        second.seed(2 * done + 1)
        same += first.act(obs) == second.act(obs)
        done += 1
    return {"positions": positions, "seed": seed, "options": options, "agreement": same / positions}


def run(
    options: dict, opponent: str, games: int, seed: int, oracle: bool = False, variant: str = "plain", prior: str | None = None,
    rules: str = "paper", rollout: str | None = None,
) -> dict:
    rng = np.random.default_rng(seed)
    deals = [(int(rng.integers(2**31)), int(rng.integers(4))) for _ in range(games)]
    variant = "oracle" if oracle else variant
    settings = dict(options)
    if rollout:  # a model spec (pretrained, a .pt file...) as everyone's rollout policy, batched over the deals
        settings["rollout"] = load_agent(rollout, Rules.preset(rules), seed=seed)
    search = make_search(variant, {"rules": rules, **settings, **({"prior": learned_prior(prior)} if prior else {})})
    other = load_agent(opponent, Rules.preset(rules), seed=1)
    scores, wins, decision_s, decisions = [], 0, 0.0, 0
    placed = [0, 0]  # hidden cards the deals put in the right seat, hidden cards dealt
    true_hands: list[int] = []
    deal = search._deal

    def scored_deal(state: PublicState) -> list[int]:  # every deal the search makes, checked against the truth
        hands = deal(state)
        placed[0] += placed_right(hands, true_hands)
        placed[1] += state.unseen_mask.bit_count()
        return hands

    search._deal = scored_deal  # type: ignore[method-assign]
    started = time.perf_counter()
    for g, (deal_seed, seat) in enumerate(deals):
        search.seed(g)
        if hasattr(other, "seed"):
            other.seed(g)
        game = Game(search.rules, seed=deal_seed)
        while game.winner is None:
            decision = Decision(game)
            if decision.player == seat:
                true_hands[:] = [game._hand_masks[(seat + k) % 4] for k in range(4)]
                if isinstance(search, OracleSearch):
                    search.true_hands = true_hands
                t = time.perf_counter()
                action = search.act(PolicyObservation(decision, extended=True))
                decision_s += time.perf_counter() - t
                decisions += 1
            else:
                [action] = policy_actions(other, [PolicyObservation(decision)])  # the view it asks for
            game._apply(decision.require_entry(action, "policy"))
        wins += game.winner == seat
        scores.append(game.scores()[seat])
    return {
        "options": options, "variant": variant, "prior": prior or "smart", "oracle": variant == "oracle",
        "rollout": rollout or "smart",
        "opponent": opponent, "rules": rules, "games": games, "seed": seed, "win_rate": wins / games,
        "mean_score": float(np.mean(scores)), "score_sd": float(np.std(scores)),
        "deal_accuracy": placed[0] / max(1, placed[1]),
        "ms_per_decision": 1000 * decision_s / max(1, decisions), "wall_s": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="smart", help="the three opponents: random, greedy, smart, ...")
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--seed", type=int, default=123, help="seeds the deals and the search's seats")
    parser.add_argument("--options", default="{}", help="SearchPolicy keyword arguments as JSON")
    parser.add_argument("--variant", default="plain",
                        help="plain (the package's search), oracle, noisy-oracle:K, mcmc:BURN,THIN or model-rollouts")
    parser.add_argument("--oracle", action="store_true", help="the same as --variant oracle")
    parser.add_argument("--rules", default="paper", help="rules preset of the played games (default paper)")
    parser.add_argument("--prior", default=None, metavar="AGENT",
                        help="rank the candidates by this network's probabilities (a model file, run folder or pretrained)")
    no_games = parser.add_mutually_exclusive_group()
    no_games.add_argument("--posterior", type=int, default=None, metavar="POSITIONS",
                          help="instead of games: how many hidden cards the deals and the history's posterior place right")
    no_games.add_argument("--agreement", type=int, default=None, metavar="POSITIONS",
                          help="instead of games: how often two differently seeded searches choose the same move")
    no_games.add_argument("--leaf-value", default=None, metavar="AGENT",
                          help="instead of games: how far this network's value at the leaves agrees with the rollouts")
    parser.add_argument("--positions", type=int, default=100, help="positions of --leaf-value (default 100)")
    parser.add_argument("--rollout", default=None, metavar="AGENT",
                        help="an agent spec (pretrained, a model file...) as the rollout policy in every seat: the network "
                             "batched over the decision's deals and candidates, on the Python engine")
    args = parser.parse_args()
    no_games_asked = args.posterior is not None or args.agreement is not None or args.leaf_value
    if no_games_asked and (args.prior or args.oracle or args.variant != "plain"):
        parser.error("--prior, --variant and --oracle set the search of played games; --posterior and --agreement play none")
    try:
        options = json.loads(args.options)
    except ValueError as error:
        options = error
    if not isinstance(options, dict):
        parser.error(f"--options must be a JSON object of SearchPolicy keywords; got {args.options!r} ({options})")
    try:  # a bad variant, SearchPolicy option or count: a usage error, not a traceback
        if args.posterior is not None:
            found = posterior_accuracy(args.posterior, args.seed)
        elif args.agreement is not None:
            found = self_agreement(args.agreement, options, args.seed)
        elif args.leaf_value:
            found = leaf_value_agreement(args.leaf_value, args.positions, options, args.seed)
        else:
            result = run(options, args.opponent, args.games, args.seed, args.oracle, args.variant, args.prior, args.rules,
                         args.rollout)
    except ValueError as error:  # LoadError too: a bad --prior
        parser.error(str(error))
    if args.leaf_value:
        print(json.dumps(found))
        print(f"over {args.positions} positions, {args.leaf_value}'s value at the leaves against the rollouts: rank "
              f"correlation {found['rank_correlation']:.2f}, same best candidate {found['same_best']:.1%}; a candidate's "
              f"value varies by {found['deal_sd_leaves']:.2f} points from deal to deal at the leaves, "
              f"{found['deal_sd_rollouts']:.2f} in the rollouts")
        return
    if args.agreement is not None:
        print(json.dumps(found))
        print(f"over {args.agreement} positions, two searches with {args.options} and different seeds choose the same move "
              f"{found['agreement']:.1%} of the time")
        return
    if args.posterior is not None:
        print(json.dumps(found))
        print(f"over {args.posterior} Smart-vs-Smart positions: pass-consistent deals place {found['proposal_accuracy']:.1%} "
              f"of the hidden cards right, the move history's posterior ({found['chain_swaps']} swaps) "
              f"{found['posterior_accuracy']:.1%}")
        return
    print(json.dumps(result))
    print(f"{result['variant']} {args.options} prior {result['prior']} vs 3 x {args.opponent}, {args.games} games: "
          f"win {result['win_rate']:.1%}, mean score {result['mean_score']:+.2f} (sd {result['score_sd']:.2f}), "
          f"deals place {result['deal_accuracy']:.1%} of the hidden cards right, {result['ms_per_decision']:.0f} ms per decision")


if __name__ == "__main__":
    main()
