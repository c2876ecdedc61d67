import Testing
@testable import HearthRules

/// List, set, map and map_diff methods (docs/rules-language.md#methods).
@Suite struct CollectionBuiltinTests {
    @Test func lists() {
        #expect(holds("[1, 2, 3].size() == 3 && [].size() == 0"))
        #expect(holds("[1, 1].concat([1]) == [1, 1, 1]"))
        #expect(errors("['a'].concat(['b'].toSet()) == ['a', 'b']"))
        #expect(holds("['a', 'b', 'c'].hasAll(['a', 'c']) && !['a', 'b'].hasAll(['a', 'd'])"))
        #expect(holds("['a', 'b'].hasAny(['d', 'b']) && !['a', 'b'].hasAny([]) && ['a', 'b'].hasAll([])"))
        #expect(holds("['a', 'a', 'b'].hasOnly(['a', 'b', 'b']) && !['a', 'c'].hasOnly(['a', 'b'])"))
        #expect(holds("['a', 'b'].join('-') == 'a-b' && [1, 2].join('-') == '1-2' && [1.5, true].join('-') == '1.5-true'"))
        #expect(holds("['a', 'b', 'a', 'c'].removeAll(['a']) == ['b', 'c']"))
        #expect(holds("['a', 'b', 'a'].toSet() == ['b', 'a'].toSet() && ['a', 'a'].toSet().size() == 1"))
        #expect(errors("['a', 'b'].difference(['a'])"))
    }

    @Test func sets() throws {
        #expect(holds("['a', 'b'].toSet().difference(['a', 'c'].toSet()) == ['b'].toSet()"))
        #expect(holds("['a', 'b'].toSet().intersection(['a', 'c'].toSet()) == ['a'].toSet()"))
        #expect(holds("['a', 'b'].toSet().union(['a', 'c'].toSet()) == ['a', 'b', 'c'].toSet()"))
        #expect(try outcome("['a', 'b'].toSet().difference(['a']).size() == 1")
                == .error("Unsupported operation error. Received: set.difference(list). Expected: set.difference(set)."))
        #expect(holds("['a', 'b'].toSet().hasAll(['a']) && !['a', 'b'].toSet().hasAny(['c'].toSet())"))
        #expect(holds("['a', 'b'].toSet().hasOnly(['a', 'b', 'c'])"))
    }

    @Test func maps() throws {
        #expect(holds("{'a': 1, 'b': 2}.size() == 2"))
        #expect(holds("{'b': 2, 'a': 1}.keys() == ['a', 'b']"))     // sorted
        #expect(holds("{'b': 2, 'a': 1}.values() == [2, 1]"))       // written order (docs/rules-language.md#methods)
        #expect(holds("{'a': 1}.get('a', 7) == 1 && {'a': 1}.get('b', 7) == 7"))
        #expect(holds("{'a': {'b': 1}}.get(['a', 'b'], 7) == 1 && {'a': {'b': 1}}.get(['a', 'c'], 7) == 7"))
        #expect(holds("{'a': 1}.get(['a', 'b'], 7) == 7"))
        #expect(holds("{'a': 1}.get([], 7) == {'a': 1}"))            // docs/rules-language.md#methods
        #expect(try outcome("{'a': 1}.hasAll(['a'])") == .error("Function not found error: Name: [hasAll]."))
        #expect(errors("{'a': 1}.keys().difference(['a'])"))
    }

    @Test func mapDiff() {
        #expect(holds("{'a': 1}.diff({}).addedKeys() == ['a'].toSet()"))
        #expect(holds("{}.diff({'a': 1}).removedKeys() == ['a'].toSet()"))
        #expect(holds("{'a': 1}.diff({'a': 2}).changedKeys() == ['a'].toSet()"))
        #expect(holds("{'a': 1}.diff({'a': 1.0}).unchangedKeys() == ['a'].toSet()"))  // docs/rules-language.md#operators
        #expect(holds("{'a': 0, 'c': 0, 'u': 0}.diff({'r': 0, 'c': 1, 'u': 0}).affectedKeys() == ['a', 'r', 'c'].toSet()"))
        #expect(holds("{'a': 1}.diff({'a': 1}).affectedKeys().size() == 0"))
        #expect(!holds("{'a': 1}.diff({}).addedKeys() is set"))
    }
}
