"""Per-block passes over a window: native agrees with the reference, and the reference does
what its docstring says (each field read as the Block has it, text changes found by identity)."""

from __future__ import annotations

import dataclasses
import importlib
import re

import pytest
from budget import examples
from conftest import IMPLEMENTATIONS, NO_EXTENSIONS, load_implementation
from hypothesis import given, settings
from hypothesis import strategies as st

from provgate import _blockscan, _blockscan_py
from provgate.errors import InvalidArgumentError
from provgate.window import Block, Window

FUNCTIONS = ("block_texts", "texts_changed", "same_shape_as", "matched_by_id", "provenance_changed",
             "stamps_changed", "holding", "holding_or_found_by_text", "by_provenance", "by_resource", "bad_derived", "window_blocks")


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return load_implementation("blockscan", "_blockscan_py", request.param)


def both():
    return [load_implementation("blockscan", "_blockscan_py", which) for which in IMPLEMENTATIONS]


def window(n: int = 4) -> tuple[Block, ...]:
    return Window([
        {"id": f"b{i}", "role": "tool", "text": f"line {i}\n", "handles": [f"tool:call_{i}"],
         "resource": "file:a.py" if i % 2 else None, "ts": float(i)}
        for i in range(n)
    ]).blocks


def copied(blocks: tuple[Block, ...]) -> tuple[Block, ...]:
    """The same blocks made anew from JSON, as an agent's next window arrives: new Block and
    tuple objects, the same strings."""
    return Window([b.to_json() for b in blocks]).blocks


def test_switch_loaded_the_native_build():
    if NO_EXTENSIONS:
        assert _blockscan.IMPLEMENTATION == "reference"
        assert _blockscan.same_shape_as is _blockscan_py.same_shape_as
        return
    native = importlib.import_module("provgate._ext.blockscan")
    assert _blockscan.IMPLEMENTATION == native.IMPLEMENTATION == "native"
    for name in FUNCTIONS:
        assert getattr(_blockscan, name) is getattr(native, name)
    assert native.SHAPE_FIELDS == _blockscan_py.SHAPE_FIELDS


def test_texts_read_the_field(impl):
    blocks = window()
    assert impl.block_texts(blocks) == [b.text for b in blocks]
    assert impl.block_texts(list(blocks)) == impl.block_texts(blocks)  # a list as well as a tuple
    assert impl.block_texts(()) == []


def test_texts_changed_is_an_identity_test(impl):
    blocks = window()
    texts = [b.text for b in blocks]
    assert impl.texts_changed(blocks, texts) == (texts, [])
    again = copied(blocks)  # JSON round trip keeps the very str objects
    assert impl.texts_changed(again, texts)[1] == []
    # an equal text that is another object is reported: the caller compares digests there
    other = list(texts)
    other[2] = "".join(["line 2", "\n"])
    assert other[2] == texts[2] and other[2] is not texts[2]
    mine, differ = impl.texts_changed(blocks, other)
    assert mine == texts and mine[2] is texts[2] and differ == [2]
    edited = Window([*blocks[:1], dataclasses.replace(blocks[1], text="changed\n"), *blocks[2:]]).blocks
    assert impl.texts_changed(edited, tuple(texts))[1] == [1]


FIELD_CHANGES = [("id", "renamed"), ("handles", ("tool:other",)), ("derived", True),
                 ("derived_from", ("tool:call_0",)), ("pinned", True), ("resource", "file:b.py"),
                 ("resource", None), ("ts", 5.0), ("ts", None), ("role", "system")]


def test_same_shape_as_tells_each_field_apart(impl):
    blocks = window()
    assert impl.same_shape_as(copied(blocks), blocks)  # equal, not identical, tuples of handles
    # the text is not a shape field (the role is: who said a text is provenance, red team 11 y01)
    other = [dataclasses.replace(b, text="x\n") for b in blocks]
    assert impl.same_shape_as(other, blocks)
    for name, value in FIELD_CHANGES:
        changed = list(blocks)
        changed[1] = dataclasses.replace(blocks[1], **{name: value})  # block 1 has a resource
        assert getattr(changed[1], name) != getattr(blocks[1], name), name
        assert not impl.same_shape_as(changed, blocks), name
        assert impl.same_shape_as(changed, list(changed)), name


def test_same_shape_as_compares_two_windows_block_by_block(impl):
    blocks = window()
    assert impl.same_shape_as(blocks, copied(blocks)) and impl.same_shape_as(list(blocks), blocks)
    assert not impl.same_shape_as(blocks, blocks[:3]) and not impl.same_shape_as(blocks[:3], blocks)
    assert impl.same_shape_as((), [])
    text_only = Window([*blocks[:2], dataclasses.replace(blocks[2], text="other\n"), blocks[3]]).blocks
    assert impl.same_shape_as(blocks, text_only)  # the text is not part of the shape
    for name, value in [("id", "renamed"), ("handles", ("tool:other",)), ("derived", True),
                        ("derived_from", ("tool:x",)), ("pinned", True), ("resource", "file:z.py")]:
        changed = Window([*blocks[:3], dataclasses.replace(blocks[3], **{name: value})]).blocks
        assert not impl.same_shape_as(blocks, changed), name
        assert not impl.same_shape_as(changed, blocks), name
    with pytest.raises(TypeError, match=r"blocks\[1\] must be a Block, not str"):
        impl.same_shape_as(blocks, [blocks[0], "x"])
    with pytest.raises(TypeError, match="blocks must be a tuple or list of Block"):
        impl.same_shape_as(None, blocks)


class Renamed(Block):
    """A subclass may answer a field through a property: it is read with getattr."""

    __slots__ = ()

    @property  # type: ignore[override]
    def text(self) -> str:  # noqa: D102
        return "from the property\n"


def test_a_block_subclass_is_read_through_getattr():
    base = window(2)
    sub = object.__new__(Renamed)
    stored = Block("b0", "tool", "stored text\n", ("tool:call_0",))
    for field in dataclasses.fields(Block):  # the slots are filled; the property hides one
        Block.__dict__[field.name].__set__(sub, getattr(stored, field.name))
    blocks = [sub, base[1]]
    for impl in both():
        assert impl.block_texts(blocks) == ["from the property\n", base[1].text]
        assert impl.texts_changed(blocks, [sub.text, base[1].text]) == (["from the property\n", base[1].text], [])
        assert impl.same_shape_as(blocks, [stored, base[1]])


def test_a_block_with_an_empty_slot_raises_as_getattr_does():
    empty = object.__new__(Block)  # no field set: every read raises AttributeError
    for impl in both():
        with pytest.raises(AttributeError):
            impl.block_texts([empty])
        with pytest.raises(AttributeError):
            impl.same_shape_as([empty], window(1))


@pytest.mark.parametrize("bad", [None, "abc", {"a": 1}, iter(()), b"xy"])
def test_blocks_must_be_a_tuple_or_list(impl, bad):
    for fn, args in ((impl.block_texts, ()), (impl.texts_changed, ([],)), (impl.same_shape_as, ([],))):
        with pytest.raises(TypeError, match="blocks must be a tuple or list of Block"):
            fn(bad, *args)


def test_every_item_must_be_a_block(impl):
    blocks = list(window(3))
    blocks[2] = {"id": "x"}
    for fn, args in ((impl.block_texts, ()), (impl.texts_changed, ([""] * 3,)), (impl.same_shape_as, (window(3),))):
        with pytest.raises(TypeError, match=r"blocks\[2\] must be a Block, not dict"):
            fn(blocks, *args)


def test_parallel_arguments_are_checked(impl):
    blocks = window(3)
    with pytest.raises(InvalidArgumentError, match="texts must have one item per block, got 2 for 3 blocks") as e:
        impl.texts_changed(blocks, ["a", "b"])
    assert e.value.argument == "texts"
    with pytest.raises(TypeError, match="texts must be a tuple or list, not str"):
        impl.texts_changed(blocks, "abc")


_TEXTS = st.sampled_from(["", "a\n", "b\n", "😀\n", "x\x00y"])
_HANDLES = st.lists(st.sampled_from(["tool:a", "tool:b", "file:c"]), max_size=2).map(tuple)


@st.composite
def _blocks(draw):
    n = draw(st.integers(0, 6))
    return tuple(Block(f"b{i}", "tool", draw(_TEXTS), draw(_HANDLES), draw(st.booleans()), draw(_HANDLES),
                       draw(st.booleans()), None, draw(st.sampled_from([None, "file:c", "file:d"])))
                 for i in range(n))


def _variant(block: Block, how: str, data) -> Block:
    """``block`` kept as the object ("same"), made anew from JSON ("copy"), with another text
    ("text") or another id ("id")."""
    if how == "same":
        return block
    if how == "copy":
        return Block.from_json(block.to_json())
    if how == "text":
        return dataclasses.replace(block, text=data.draw(_TEXTS))
    return dataclasses.replace(block, id=block.id + "x")


@settings(max_examples=300, deadline=None)
@given(a=_blocks(), data=st.data())
def test_native_agrees_with_the_reference(a, data):
    # b: a window made from a (some blocks kept as objects, some made anew, some changed)
    b = []
    for block in a:
        how = data.draw(st.sampled_from(["same", "copy", "text", "field"]))
        if how != "field":
            b.append(_variant(block, how, data))
        else:
            name = data.draw(st.sampled_from(_blockscan_py.SHAPE_FIELDS))
            value = {"id": "renamed", "resource": data.draw(st.sampled_from([None, "file:c", "file:d"])),
                     "ts": data.draw(st.sampled_from([None, 1.0, 2.5])),
                     "role": data.draw(st.sampled_from(["tool", "user", "system"]))}.get(
                name, data.draw(_HANDLES) if name in ("handles", "derived_from") else data.draw(st.booleans()))
            b.append(dataclasses.replace(block, **{name: value}))
    texts = [x.text for x in a]
    impls = both()
    reference = _blockscan_py
    for impl in impls:
        assert impl.block_texts(b) == reference.block_texts(b)
        assert impl.texts_changed(b, texts) == reference.texts_changed(b, texts)
        assert impl.same_shape_as(b, a) == reference.same_shape_as(b, a)
        assert impl.same_shape_as(a, b) == impl.same_shape_as(b, a) and impl.same_shape_as(a, a)
        positions = list(range(len(a)))
        assert impl.stamps_changed(b, positions, a) == reference.stamps_changed(b, positions, a)
        assert impl.provenance_changed(b, positions, a) == reference.provenance_changed(b, positions, a)
        # by definition: every shape field equal, block by block
        fields = reference.SHAPE_FIELDS
        assert impl.same_shape_as(b, a) == all(getattr(x, f) == getattr(y, f) for x, y in zip(a, b) for f in fields)


def test_provenance_changed_finds_matched_blocks_with_other_provenance(impl):
    pre = window(4)
    post = [pre[0],
            dataclasses.replace(pre[1], handles=("tool:other",)),  # other handles
            Block.from_json(pre[2].to_json()),  # equal, new objects
            dataclasses.replace(pre[3], derived=True, derived_from=("tool:call_3",)),  # now derived
            dataclasses.replace(pre[0], id="new", derived=True),  # derived without derived_from
            dataclasses.replace(pre[1], id="unmatched", handles=()),
            dataclasses.replace(pre[2], role="system")]  # who said it
    assert impl.provenance_changed(post, [0, 1, 2, 3, 0, None, 2], pre) == [1, 3, 4, 6]
    # a block compared with another pre block: any provenance difference counts
    assert impl.provenance_changed([pre[0], pre[1]], [1, 0], pre) == [0, 1]
    assert impl.provenance_changed([pre[0]], [0], pre) == []
    # handles in another order are a difference here (the gate looks in detail later)
    two = dataclasses.replace(pre[0], handles=("a:1", "b:2"))
    assert impl.provenance_changed([dataclasses.replace(two, handles=("b:2", "a:1"))], [0], [two]) == [0]


@pytest.mark.parametrize("match, exc, message", [
    ([0, 5], InvalidArgumentError, r"match\[1\] = 5 is not an index of other \(there are 2\)"),
    ([-1, 0], InvalidArgumentError, r"match\[0\] = -1"),
    ([0, True], TypeError, r"match\[1\] must be an int or None, not bool"),
    ([0, 1.0], TypeError, r"match\[1\] must be an int or None, not float"),
    ([0], InvalidArgumentError, "match must have one item per block, got 1 for 2 blocks"),
    ("ab", TypeError, "match must be a tuple or list, not str"),
])
@pytest.mark.parametrize("name", ["provenance_changed", "stamps_changed"])
def test_provenance_changed_refuses_a_bad_match(impl, match, exc, message, name):
    with pytest.raises(exc, match=message):
        getattr(impl, name)(window(2), match, window(2))


@pytest.mark.parametrize("name", ["provenance_changed", "stamps_changed"])
def test_provenance_changed_checks_the_other_blocks(impl, name):
    with pytest.raises(TypeError, match=r"blocks\[1\] must be a Block, not str"):
        getattr(impl, name)(window(1), [0], [window(1)[0], "x"])


def test_stamps_changed_finds_reads_kept_with_another_resource_or_ts(impl):
    pre = window(4)  # blocks 1 and 3 are reads of file:a.py; every block has a ts
    post = [dataclasses.replace(pre[0], ts=9.0),  # not a read: its ts may change
            dataclasses.replace(pre[1], ts=9.0),  # a read re-stamped
            Block.from_json(pre[2].to_json()),  # equal, new objects
            dataclasses.replace(pre[3], resource=None),  # taken out of its resource
            dataclasses.replace(pre[0], resource="file:b.py"),  # made a read
            dataclasses.replace(pre[1], id="other", ts=9.0),  # a copy under another id
            dataclasses.replace(pre[1], ts=None)]
    assert impl.stamps_changed(post, [0, 1, 2, 3, 0, 1, None], pre) == [1, 3, 4]
    assert impl.stamps_changed(list(pre), [0, 1, 2, 3], pre) == []


@settings(max_examples=300, deadline=None)
@given(a=_blocks(), data=st.data())
def test_provenance_changed_native_agrees_with_the_reference(a, data):
    b = [data.draw(st.sampled_from([block, Block.from_json(block.to_json()),
                                    dataclasses.replace(block, derived=not block.derived),
                                    dataclasses.replace(block, handles=data.draw(_HANDLES)),
                                    dataclasses.replace(block, derived_from=data.draw(_HANDLES))]))
         for block in a]
    match = [data.draw(st.one_of(st.none(), st.integers(0, len(a) - 1))) for _ in b] if a else []
    expected = _blockscan_py.provenance_changed(b, match, a)
    for impl in both():
        assert impl.provenance_changed(b, match, a) == expected


def test_matched_by_id_pairs_a_block_with_its_id_and_text_in_the_other_window(impl):
    pre = Window([{"id": f"b{i}", "role": "tool", "text": f"line {i}\n"} for i in range(4)])
    digests = [b.text.encode() for b in pre]  # any bytes stand in for digests here
    post = Window([pre[2].to_json(), {"id": "b0", "role": "tool", "text": "other\n"},
                   {"id": "new", "role": "tool", "text": "line 1\n"}, pre[3].to_json()])
    mine = [b.text.encode() for b in post]
    assert impl.matched_by_id(post.blocks, mine, pre.positions_by_id(), digests) == ([2, None, None, 3], [1, 2])
    # any mapping with .get, a list or a tuple of digests, equal bytes that are other objects
    assert impl.matched_by_id(list(post.blocks), tuple(mine), dict(pre.positions_by_id()), tuple(digests))[0] == [
        2, None, None, 3]
    assert impl.matched_by_id((), [], {}, []) == ([], [])
    assert impl.matched_by_id(post.blocks, mine, {}, digests) == ([None] * 4, [0, 1, 2, 3])


@pytest.mark.parametrize("id_pos, exc, message", [
    ({"b0": 2}, InvalidArgumentError, r"id_pos\['b0'\] = 2 is not an index of other_digests \(there are 2\)"),
    ({"b0": -1}, InvalidArgumentError, r"id_pos\['b0'\] = -1"),
    ({"b1": True}, TypeError, r"id_pos\['b1'\] must be an int position, not bool"),
    ({"b1": "0"}, TypeError, r"id_pos\['b1'\] must be an int position, not str"),
])
def test_matched_by_id_refuses_a_bad_position(impl, id_pos, exc, message):
    blocks = window(2)
    with pytest.raises(exc, match=message) as e:
        impl.matched_by_id(blocks, [b"x", b"y"], id_pos, [b"x", b"y"])
    if exc is InvalidArgumentError:
        assert e.value.argument == "id_pos"


def test_matched_by_id_checks_its_arguments(impl):
    blocks = window(2)
    with pytest.raises(InvalidArgumentError, match="digests must have one item per block, got 1 for 2 blocks"):
        impl.matched_by_id(blocks, [b"x"], {}, [])
    with pytest.raises(TypeError, match="other_digests must be a tuple or list, not bytes"):
        impl.matched_by_id(blocks, [b"x", b"y"], {}, b"xy")
    with pytest.raises(TypeError, match=r"blocks\[1\] must be a Block, not int"):
        impl.matched_by_id([blocks[0], 3], [b"x", b"y"], {}, [])
    with pytest.raises(AttributeError):
        impl.matched_by_id(blocks, [b"x", b"y"], [("b0", 0)], [b"x"])  # not a mapping


@settings(max_examples=300, deadline=None)
@given(a=_blocks(), data=st.data())
def test_matched_by_id_native_agrees_with_the_reference(a, data):
    # b: blocks of a (kept, copied, retexted, renamed) in any order, some dropped, some new
    b = []
    for block in data.draw(st.permutations(a)):
        how = data.draw(st.sampled_from(["same", "copy", "text", "id", "drop"]))
        if how != "drop":
            b.append(_variant(block, how, data))
    ids = {block.id: i for i, block in enumerate(a)}
    theirs = [block.text.encode("utf-8", "surrogatepass") for block in a]
    mine = [block.text.encode("utf-8", "surrogatepass") for block in b]
    expected = _blockscan_py.matched_by_id(b, mine, ids, theirs)
    assert expected[0] == [ids[x.id] if x.id in ids and a[ids[x.id]].text == x.text else None for x in b]
    for impl in both():
        assert impl.matched_by_id(b, mine, ids, theirs) == expected


def test_provenance_indexes(impl):
    blocks = [Block("a", "tool", "x\n", ("tool:1", "tool:2")),
              Block("b", "summary", "y\n", (), True, ("tool:2", "tool:3")),
              Block("c", "summary", "z\n", ("tool:9",), True, ()),  # derived: its handles do not ground it
              Block("d", "tool", "w\n", ("tool:3",))]
    assert impl.holding(blocks, {"tool:2"}) == [0]
    assert impl.holding(blocks, frozenset({"tool:3", "tool:9"})) == [2, 3]
    assert impl.holding(blocks, set()) == []
    turns = [Block("u", "user", "go on\n", ("user:u1",)), Block("n", "tool", "x\n", ()),
             Block("m", "assistant", "ok\n", ("msg:m1",)), Block("t", "tool", "y\n", ("tool:9",))]
    assert impl.holding_or_found_by_text(turns, frozenset(), frozenset({"user"})) == [0, 1]
    assert impl.holding_or_found_by_text(turns, {"tool:9"}, frozenset({"user", "assistant"})) == [0, 1, 2, 3]
    assert impl.holding_or_found_by_text(turns, {"msg:m1"}, set()) == [1, 2]
    with pytest.raises(TypeError, match="roles must be a set or frozenset, not tuple"):
        impl.holding_or_found_by_text(turns, set(), ("user",))
    with pytest.raises(TypeError, match="handles must be a set or frozenset, not list"):
        impl.holding_or_found_by_text(turns, ["tool:9"], set())
    assert impl.by_provenance(blocks) == {"tool:1": [0], "tool:2": [0, 1], "tool:3": [1, 3]}
    assert list(impl.by_provenance(blocks)) == ["tool:1", "tool:2", "tool:3"]  # first appearance
    assert impl.bad_derived(blocks) == [2]
    reads = [dataclasses.replace(b, resource=r) for b, r in zip(blocks, ["file:b", None, "file:a", "file:b"])]
    assert impl.by_resource(reads) == {"file:b": [0, 3], "file:a": [2]}
    assert list(impl.by_resource(reads)) == ["file:b", "file:a"]  # first appearance
    assert impl.by_resource(blocks) == {}
    with pytest.raises(TypeError, match=r"blocks\[1\] must be a Block, not str"):
        impl.by_resource([reads[0], "file:b"])
    with pytest.raises(TypeError, match="handles must be a set or frozenset, not list"):
        impl.holding(blocks, ["tool:2"])
    with pytest.raises(TypeError, match=r"blocks\[0\] must be a Block, not int"):
        impl.by_provenance([1])


@settings(max_examples=300, deadline=None)
@given(a=_blocks(), wanted=st.frozensets(st.sampled_from(["tool:a", "tool:b", "file:c", "x"])))
def test_provenance_indexes_native_agree_with_the_reference(a, wanted):
    class Wanted(set):
        pass

    for impl in both():
        assert impl.holding(a, wanted) == _blockscan_py.holding(a, wanted)
        assert impl.holding(a, Wanted(wanted)) == _blockscan_py.holding(a, wanted)
        for roles in (frozenset(), frozenset({"user", "system", "assistant"}), Wanted({"tool"})):
            assert (impl.holding_or_found_by_text(a, wanted, roles)
                    == _blockscan_py.holding_or_found_by_text(a, wanted, roles)
                    == _blockscan_py.holding_or_found_by_text(a, Wanted(wanted), frozenset(roles)))
        assert list(impl.by_provenance(a).items()) == list(_blockscan_py.by_provenance(a).items())
        assert list(impl.by_resource(a).items()) == list(_blockscan_py.by_resource(a).items())
        assert impl.bad_derived(a) == _blockscan_py.bad_derived(a)



# -- window_blocks: a window's blocks from JSON objects ---------------------------------------

# every kind of value a field may hold, valid and not: the native fast path takes only the usual
# forms and hands everything else to Block.from_json, so both implementations must agree on all
_names = st.one_of(
    st.sampled_from(["tool:call_1", "b1", "x", "doc:a/b.md", "file:src/app.py"]),
    st.text(min_size=0, max_size=6),
    st.just("a\x00b"), st.just("caf\u00e9"), st.just("\ud800"), st.just("x" * 257), st.just("h" * 1025),
    st.just("h" * 1024),
)
_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.just(2**1100), st.floats(allow_nan=True),
                    _names, st.lists(_names, max_size=3), st.lists(_names, max_size=3).map(tuple),
                    st.dictionaries(_names, st.integers(), max_size=1))
_fields = {
    "id": st.one_of(_names, _values),
    "role": st.one_of(st.sampled_from(["system", "user", "assistant", "tool", "summary", "bot", "User"]), _values),
    "text": st.one_of(st.text(max_size=8), st.just("x\ud800y"), _values),
    "handles": st.one_of(st.lists(_names, max_size=3), st.lists(_names, max_size=3).map(tuple), _values),
    "derived": st.one_of(st.booleans(), _values),
    "derived_from": st.one_of(st.lists(_names, max_size=3), _values),
    "pinned": st.one_of(st.booleans(), _values),
    "ts": st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**64), 2**64), st.just(2**1100),
                    _values),
    "resource": st.one_of(st.none(), _names, _values),
    "extra": _values,  # an unknown field: ignored
}


@st.composite
def _json_block(draw):
    keys = draw(st.lists(st.sampled_from(list(_fields)), unique=True))
    if draw(st.booleans()):  # mostly the usual form: every required field, valid values
        obj = {"id": draw(st.sampled_from(["b1", "b2", "b3", "call_4"])), "role": "tool", "text": draw(st.text(max_size=5))}
    else:
        obj = {}
    for key in keys:
        obj[key] = draw(_fields[key])
    return obj


def _outcome(impl, items, path="window"):
    try:
        blocks, by_id = impl.window_blocks(items, path)
    except Exception as exc:  # noqa: BLE001 -- any error: both must raise the same, with the same message and field
        return ("error", type(exc), str(exc), getattr(exc, "field", None))
    return ("ok", blocks, by_id, [tuple(type(getattr(b, f)) for f in Block.__slots__) for b in blocks])


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.one_of(_json_block(), st.sampled_from([None, 3, "b", ["id"]])), max_size=5))
def test_window_blocks_native_agrees_with_the_reference(items):
    outcomes = [_outcome(impl, items) for impl in both()]
    assert outcomes[0] == outcomes[-1]


def test_window_blocks_makes_what_block_from_json_makes(impl):
    items = [{"id": "b1", "role": "tool", "text": "retries=3\n", "handles": ["tool:call_1"], "ts": 5,
              "resource": "file:a.cfg", "unknown": [1, 2]},
             {"id": "b2", "role": "summary", "text": "x", "derived": True, "derived_from": ("tool:call_1",),
              "pinned": False, "ts": 1.5},
             {"id": "caf\u00e9", "role": "user", "text": "non-ASCII id: the reference's own checks"}]
    blocks, by_id = impl.window_blocks(items, "post")
    assert blocks == tuple(Block.from_json(o) for o in items)
    assert by_id == {"b1": 0, "b2": 1, "caf\u00e9": 2}
    assert blocks[0].ts == 5.0 and type(blocks[0].ts) is float and blocks[0].handles == ("tool:call_1",)
    assert blocks[1].derived_from == ("tool:call_1",) and blocks[1].handles == ()
    assert type(blocks[0].handles) is tuple
    # Block objects are taken as they are (a subclass too), any iterable of items is read once
    again, _ = impl.window_blocks(iter(blocks), "w")
    assert all(a is b for a, b in zip(again, blocks))


def test_window_blocks_reads_a_ts_at_the_bounds_as_block_from_json_does(impl):
    # red team 49, F05: +-2**53 is the last ts read (the native path leaves it to the reference)
    items = [{"id": f"b{k}", "role": "tool", "text": "", "ts": ts}
             for k, ts in enumerate((2**53, -(2**53), 2.0**53, 2**53 - 1, 1763000000123456))]
    blocks, _ = impl.window_blocks(items, "w")
    assert blocks == tuple(Block.from_json(o) for o in items)
    assert [b.ts for b in blocks] == [o["ts"] for o in items] and all(type(b.ts) is float for b in blocks)


@pytest.mark.parametrize("bad, field, message", [
    ({"id": "b1", "role": "tool"}, "w[1].text", "required field is missing"),
    ({"id": "b1", "role": "bot", "text": ""}, "w[1].role", "unknown role"),
    ({"id": "", "role": "tool", "text": ""}, "w[1].id", "must not be empty"),
    ({"id": "a\x00", "role": "tool", "text": ""}, "w[1].id", "NUL"),
    ({"id": "x" * 257, "role": "tool", "text": ""}, "w[1].id", "longer than 256"),
    ({"id": "b1", "role": "tool", "text": "", "handles": ["h" * 1025]}, "w[1].handles[0]", "longer than 1024"),
    ({"id": "b1", "role": "tool", "text": "", "handles": "tool:x"}, "w[1].handles", "expected an array"),
    ({"id": "b1", "role": "tool", "text": "", "handles": [""]}, "w[1].handles[0]", "must not be empty"),
    ({"id": "b1", "role": "tool", "text": "", "derived_from": ["\ud800"]}, "w[1].derived_from[0]", "surrogate"),
    ({"id": "b1", "role": "tool", "text": "", "derived": 1}, "w[1].derived", "expected a boolean"),
    ({"id": "b1", "role": "tool", "text": "", "pinned": None}, "w[1].pinned", "expected a boolean"),
    ({"id": "b1", "role": "tool", "text": "", "ts": float("nan")}, "w[1].ts", "finite"),
    ({"id": "b1", "role": "tool", "text": "", "ts": 2**1100}, "w[1].ts", "beyond the range of a float"),
    ({"id": "b1", "role": "tool", "text": "", "ts": True}, "w[1].ts", "expected a number"),
    # red team 49, F05: beyond +-2**53 (an int that rounds to 2**53 as a double too)
    ({"id": "b1", "role": "tool", "text": "", "ts": 2**53 + 1}, "w[1].ts", "beyond +-2**53"),
    ({"id": "b1", "role": "tool", "text": "", "ts": -(2**53) - 1}, "w[1].ts", "beyond +-2**53"),
    ({"id": "b1", "role": "tool", "text": "", "ts": 1763000000123456789}, "w[1].ts", "beyond +-2**53"),
    ({"id": "b1", "role": "tool", "text": "", "ts": 2.0**60}, "w[1].ts", "beyond +-2**53"),
    ({"id": "b1", "role": "tool", "text": "", "resource": "a\x00"}, "w[1].resource", "NUL"),
    ({"id": "b0", "role": "tool", "text": ""}, "w[1].id", "duplicate block id 'b0' (also at w[0])"),
    ("b1", "w[1]", "expected an object"),
])
def test_window_blocks_refuses_what_the_format_refuses(impl, bad, field, message):
    from provgate.errors import EditFormatError

    with pytest.raises(EditFormatError, match=re.escape(message)) as e:
        impl.window_blocks([{"id": "b0", "role": "tool", "text": "ok"}, bad, {"id": "b9", "role": "x"}], "w")
    assert e.value.field == field


# -- same_blocks_as: equal windows, field for field -------------------------------------------

ALL_FIELD_CHANGES = [("id", "renamed"), ("role", "user"), ("text", "other\n"), ("handles", ("tool:other",)),
                     ("derived", True), ("derived_from", ("tool:x",)), ("pinned", True), ("ts", 99.0),
                     ("resource", "file:z.py")]


def test_same_blocks_as_tells_every_field_apart(impl):
    blocks = window()
    assert impl.same_blocks_as(copied(blocks), blocks)  # equal, not identical, blocks
    assert impl.same_blocks_as((), []) and not impl.same_blocks_as(blocks, blocks[:3])
    assert {f.name for f in dataclasses.fields(Block)} == {name for name, _ in ALL_FIELD_CHANGES}
    texts_anew = [dataclasses.replace(b, text="".join(list(b.text))) for b in blocks]  # equal, other objects
    assert impl.same_blocks_as(texts_anew, blocks)
    for name, value in ALL_FIELD_CHANGES:
        for k in (0, 3):
            changed = list(blocks)
            changed[k] = dataclasses.replace(blocks[k], **{name: value})
            assert not impl.same_blocks_as(changed, blocks), (name, k)
            assert not impl.same_blocks_as(blocks, changed), (name, k)
    with pytest.raises(TypeError, match=r"blocks\[1\] must be a Block, not str"):
        impl.same_blocks_as(blocks, [blocks[0], "x"])


def test_same_blocks_as_compares_a_subclass_as_the_dataclass_does():
    base = window(2)
    sub = object.__new__(Renamed)
    for field in dataclasses.fields(Block):
        Block.__dict__[field.name].__set__(sub, getattr(base[0], field.name))
    for impl in both():
        assert not impl.same_blocks_as([sub, base[1]], base)  # another class: not equal (==)
        assert impl.same_blocks_as([sub, base[1]], [sub, base[1]])  # the very block
        with pytest.raises(AttributeError):
            impl.same_blocks_as([object.__new__(Block)], window(1))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 5), st.sampled_from(ALL_FIELD_CHANGES), st.booleans())
def test_same_blocks_as_native_agrees_with_the_reference(k, change, rebuilt):
    blocks = window(6)
    other = list(copied(blocks) if rebuilt else blocks)
    other[k] = dataclasses.replace(other[k], **{change[0]: change[1]})
    answers = {impl.same_blocks_as(blocks, other) for impl in both()} | {impl.same_blocks_as(other, blocks) for impl in both()}
    assert answers == {getattr(blocks[k], change[0]) == change[1]}


def test_blocks_made_from_json_are_left_out_of_the_cycle_collector():
    """A block's fields are strings, tuples of strings, bools, a float or None, so no block can
    be in a reference cycle: the native pass does not make the collector track the hundreds it
    makes per window (the reference's Block.from_json leaves that to CPython)."""
    import gc

    items = [{"id": f"b{i}", "role": "tool", "text": f"x{i}\n", "handles": [f"tool:c{i}", "tool:d"],
              "derived_from": ["tool:e"], "ts": float(i), "resource": "file:a"} for i in range(50)]
    for impl in both():
        blocks, _ = impl.window_blocks(items, "w")
        for b in blocks:
            for name in Block.__slots__:
                value = getattr(b, name)
                assert value is None or type(value) in (str, bool, float) or (
                    type(value) is tuple and all(type(h) is str for h in value)), name
            if impl.IMPLEMENTATION == "native":
                assert not gc.is_tracked(b) and not gc.is_tracked(b.handles) and not gc.is_tracked(b.derived_from)
        assert blocks == tuple(Block.from_json(o) for o in items)
        del blocks
        gc.collect()


def test_window_blocks_reads_any_iterable_once_and_lets_its_errors_through(impl):
    good = {"id": "b1", "role": "tool", "text": "x"}

    def items():
        yield good
        yield Block("b2", "user", "y")
        raise LookupError("the caller's iterator failed")

    with pytest.raises(LookupError, match="caller's iterator"):
        impl.window_blocks(items(), "w")
    blocks, by_id = impl.window_blocks(iter([good, Block("b2", "user", "y")]), "w")
    assert [b.id for b in blocks] == ["b1", "b2"] and by_id == {"b1": 0, "b2": 1}
    from provgate.errors import EditFormatError

    with pytest.raises(EditFormatError, match="expected an object") as e:
        impl.window_blocks({"b1": good}, "w")  # a dict iterates over its keys
    assert e.value.field == "w[0]"
