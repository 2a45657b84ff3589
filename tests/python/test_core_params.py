"""The core's parameter structs as the bindings see them: `_core.registry()` has the agreed
shape, every binding class builds from keyword arguments alone (the defaults of its
parameter struct), and a bad keyword or value is a ValueError subclass naming it."""

from __future__ import annotations

import inspect

import kernelstream as ks
import pytest
from kernelstream import _core
from kernelstream.errors import InputError, ParameterError
from kernelstream.kernels import Gaussian

REGISTRY = _core.registry()
NAMES = [e["name"] for e in REGISTRY]
KINDS = {"float", "int", "bool", "str", "seq", "kernel", "kernels", "object"}


def test_registry_shape():
    assert len(NAMES) == len(set(NAMES)) >= 14
    for e in REGISTRY:
        assert set(e) == {
            "name",
            "core_class",
            "task",
            "input_domain",
            "module",
            "state_version",
            "mixture_expert",
            "params",
        }
        assert getattr(_core, e["core_class"]).__name__ == e["core_class"]
        assert e["task"] in {"regression", "classification", "both"}
        assert e["input_domain"] in {"real", "unit_cube"}
        assert e["module"].startswith("kernelstream.learners.")
        assert isinstance(e["state_version"], int) and e["state_version"] >= 1
        assert isinstance(e["mixture_expert"], bool)
        names = [p["name"] for p in e["params"]]
        assert len(names) == len(set(names)), e["name"]
        for p in e["params"]:
            assert set(p) == {"name", "default", "kind", "domain", "constraint", "required"}
            assert p["kind"] in KINDS and p["domain"]
            assert p["default"] is None or not p["required"]


def test_registry_is_stable():
    assert _core.registry() == REGISTRY


@pytest.mark.parametrize("name", NAMES)
def test_registry_agrees_with_the_python_signature(name):
    """Names, order, defaults and which parameters are required (the Python faces
    document what the Rust parameter structs define)."""
    entry = next(e for e in REGISTRY if e["name"] == name)
    sig = inspect.signature(getattr(ks, name).__init__)
    params = [
        p
        for p in list(sig.parameters.values())[1:]
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    assert [p.name for p in params] == [p["name"] for p in entry["params"]]
    for p, q in zip(params, entry["params"]):
        assert (p.default is p.empty) == q["required"], p.name
        if p.default is not p.empty:
            assert p.default == q["default"] and type(p.default) is type(q["default"]), p.name


def _required(entry) -> dict:
    """Values for the required parameters of a core class."""
    fill = {"kernel": Gaussian(1.0), "kernels": [Gaussian(1.0), Gaussian(2.0)]}
    return {p["name"]: fill[p["name"]] for p in entry["params"] if p["required"]}


CORE = [e for e in REGISTRY if e["name"] != "Mixture"]


@pytest.mark.parametrize("entry", CORE, ids=[e["name"] for e in CORE])
def test_core_class_builds_from_its_defaults(entry):
    core = getattr(_core, entry["core_class"])(**_required(entry))
    assert core.n_seen == 0


@pytest.mark.parametrize("entry", CORE, ids=[e["name"] for e in CORE])
def test_unknown_keyword_is_an_input_error_naming_it(entry):
    cls = getattr(_core, entry["core_class"])
    with pytest.raises(InputError, match="no_such_parameter"):
        cls(**_required(entry), no_such_parameter=1)


@pytest.mark.parametrize("entry", CORE, ids=[e["name"] for e in CORE])
def test_wrong_type_is_a_parameter_error_naming_it(entry):
    cls = getattr(_core, entry["core_class"])
    p = next(p for p in entry["params"] if p["kind"] in ("float", "int") and not p["required"])
    with pytest.raises(ParameterError, match=p["name"]):
        cls(**_required(entry), **{p["name"]: "not a number"})


def test_a_value_out_of_its_domain_is_refused_by_the_struct_check():
    with pytest.raises(ParameterError, match="sigma"):
        _core.TaylorAWV(sigma=-1.0)
    with pytest.raises(ParameterError, match="kernel"):
        _core.RFFAWV(kernel="gaussian")
    with pytest.raises(ParameterError, match="kernel"):
        _core.KernelAWV()  # required, no default


def test_mixture_takes_experts_and_rule_then_keywords():
    experts = [ks.TaylorAWV(sigma=s) for s in (0.5, 1.0)]
    m = ks.Mixture(experts, rule="ewa", threads=1)
    assert m._core.n_experts == 2
    rule = ks.aggregation.EWA(n_experts=2)._core
    with pytest.raises(InputError, match="bogus"):
        _core.Mixture([e._core for e in experts], rule, bogus=1)


# --- the declared constraints are the checks -----------------------------------------

from kernelstream.learners import _declared, _registry  # noqa: E402

CASES = [
    (e["name"], p)
    for e in REGISTRY
    for p in e["params"]
    if p["constraint"]["type"] != "object" or p["kind"] == "kernel"
]


def _with(name: str, key: str, value):
    face = _registry.face(name)
    return face, {**face._example(), key: value}


@pytest.mark.parametrize("name,spec", CASES, ids=[f"{n}.{p['name']}" for n, p in CASES])
def test_a_value_outside_the_declared_constraint_is_a_parameter_error(name, spec):
    """Each invalid value the constraint gives (just outside a bound, NaN, an infinity,
    not an option, None where not accepted, the wrong type) is refused, naming the
    parameter, and builds nothing."""
    _, invalid = _declared.samples(spec)
    assert invalid, spec
    for bad in invalid:
        face, kwargs = _with(name, spec["name"], bad)
        with pytest.raises(ParameterError, match=spec["name"]):
            face(**kwargs)


@pytest.mark.parametrize("name,spec", CASES, ids=[f"{n}.{p['name']}" for n, p in CASES])
def test_the_declared_bounds_pass_the_declared_check(name, spec):
    """Each valid value the constraint gives (a bound, the nearest number inside an open
    one, an option, None where accepted) passes the parameter's own check: a refusal, if
    any, comes from a relation between parameters, never from the constraint's words."""
    valid, _ = _declared.samples(spec)
    own = f"{spec['name']} must be {spec['domain']}"
    for ok in valid:
        face, kwargs = _with(name, spec["name"], ok)
        try:
            face(**kwargs)
        except ParameterError as exc:
            assert own not in str(exc), (ok, str(exc))


def test_the_domain_words_are_the_constraint():
    """The docs' domain text is generated from the constraint the core checks."""
    taylor = {p["name"]: p for p in next(e for e in REGISTRY if e["name"] == "TaylorAWV")["params"]}
    sigma = taylor["sigma"]["constraint"]
    assert sigma["type"] == "interval" and not sigma["lo_open"]
    assert taylor["sigma"]["domain"] == f"in [{sigma['lo']!r}, {sigma['hi']!r}]".replace("e+", "e")
    assert taylor["gamma"]["domain"] == "in (0, 1]"
    assert taylor["block_size"]["domain"] == "None or in [1, 1024]"


def test_taylor_sigma_takes_its_whole_documented_domain():
    """The smallest sigma the domain admits is the smallest double whose inverse is
    finite (the Taylor features multiply by 1/sigma): 1e-200 and that bound are taken, the
    double below it is refused."""
    import math

    c = next(
        p
        for p in next(e for e in REGISTRY if e["name"] == "TaylorAWV")["params"]
        if p["name"] == "sigma"
    )["constraint"]
    lo = c["lo"]
    assert math.isfinite(1.0 / lo) and math.isinf(1.0 / math.nextafter(lo, 0.0))
    for sigma in (1e-200, lo, 1e-100, 1e300):
        assert ks.TaylorAWV(sigma=sigma).sigma == sigma
    with pytest.raises(ParameterError, match="sigma"):
        ks.TaylorAWV(sigma=math.nextafter(lo, 0.0))
