package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSelectorMatches(t *testing.T) {
	web := map[string]string{"app": "web", "tier": "frontend", "env": "a"}
	legacy := map[string]string{"app": "web", "legacy": "true"}
	num := map[string]string{"gen": "5"}
	cases := []struct {
		sel    string
		labels map[string]string
		want   bool
	}{
		{"", web, true},
		{"", nil, true},
		{"app=web", web, true},
		{"app==web", web, true},
		{"app=db", web, false},
		{"app=web", nil, false},
		{"tier!=db", web, true},
		{"tier!=frontend", web, false},
		{"missing!=x", web, true}, // != is satisfied by an absent key
		{"env in (a,b)", web, true},
		{"env in (b,c)", web, false},
		{"env in (a)", nil, false},
		{"env notin (b,c)", web, true},
		{"env notin (a)", web, false},
		{"missing notin (a)", web, true}, // notin is satisfied by an absent key
		{"legacy", legacy, true},
		{"legacy", web, false},
		{"!legacy", web, true},
		{"!legacy", legacy, false},
		{"app=web,tier!=db,env in (a,b),!legacy", web, true},
		{"app=web,tier!=db,env in (a,b),!legacy", legacy, false},
		{"gen>4", num, true},
		{"gen>5", num, false},
		{"gen<6", num, true},
		{"gen>4", web, false},
		{"app=", map[string]string{"app": ""}, true},
		{"app=", web, false},
		{"  app = web , tier  in(frontend)  ", web, true},
		{"env in (a,)", map[string]string{"env": ""}, true},
	}
	for _, c := range cases {
		t.Run(c.sel, func(t *testing.T) {
			s, err := ParseSelector(c.sel)
			require.NoError(t, err)
			assert.Equal(t, c.want, s.Matches(c.labels))
		})
	}
}

func TestParseSelectorString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"tier!=db,app=web", "app=web,tier!=db"},
		{"env in (b,a,b)", "env in (a,b)"},
		{"!legacy,app", "app,!legacy"},
		{"x notin ( z , y )", "x notin (y,z)"},
		{"gen>4,gen<9", "gen>4,gen<9"},
		{"a==b", "a==b"},
		{"example.com/role=db", "example.com/role=db"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			s, err := ParseSelector(c.in)
			require.NoError(t, err)
			assert.Equal(t, c.want, s.String())
			back, err := ParseSelector(s.String())
			require.NoError(t, err)
			assert.Equal(t, s, back, "String must parse back")
		})
	}
}

func TestParseSelectorErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"app=web,", `found 'end of string', expected: identifier after ','`},
		{",app", `found ',', expected: !, identifier, or 'end of string'`},
		{"!", `found 'end of string', expected: identifier after '!'`},
		{"app web", `found 'web', expected: '=', '!=', '==', 'in', 'notin', '>' or '<'`},
		{"env in a", `found 'a', expected: '('`},
		{"env in (a", `found 'end of string', expected: ',' or ')'`},
		{"gen>x", `values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`},
		{"gen>", `found 'end of string', expected: identifier`},
		{"app=a=b", `found '=', expected: ',' or 'end of string'`},
		{"Bad_Key_=x", `key: Invalid value: "Bad_Key_": name part must consist of alphanumeric characters`},
		{"app=bad value", `found 'value', expected: ',' or 'end of string'`},
		{"app=-web", `values[0]: Invalid value: "-web": a valid label must be an empty string or consist of`},
		{"a/b/c=x", `key: Invalid value: "a/b/c": a qualified name must consist of`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			_, err := ParseSelector(c.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), `couldn't parse the selector string "`+c.in+`": `)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestLabelSelectorSemantics(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "frontend"}
	var nilSel *LabelSelector
	assert.False(t, nilSel.Matches(labels), "a nil selector matches nothing")
	assert.False(t, nilSel.Matches(nil))
	assert.True(t, (&LabelSelector{}).Matches(labels), "an empty selector matches everything")
	assert.True(t, (&LabelSelector{}).Matches(nil))

	cases := []struct {
		name string
		sel  LabelSelector
		want bool
	}{
		{"matchLabels", LabelSelector{MatchLabels: map[string]string{"app": "web"}}, true},
		{"matchLabels miss", LabelSelector{MatchLabels: map[string]string{"app": "web", "x": "y"}}, false},
		{"In", LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpIn, Values: []string{"frontend", "backend"}}}}, true},
		{"NotIn", LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpNotIn, Values: []string{"frontend"}}}}, false},
		{"NotIn absent", LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "zone", Operator: LabelSelectorOpNotIn, Values: []string{"a"}}}}, true},
		{"Exists", LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpExists}}}, true},
		{"DoesNotExist", LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpDoesNotExist}}}, false},
		{"both ANDed", LabelSelector{MatchLabels: map[string]string{"app": "web"},
			MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: LabelSelectorOpDoesNotExist}}}, false},
		{"bad operator matches nothing", LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: "Like"}}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, c.sel.Matches(labels))
		})
	}

	_, err := (&LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: "Like"}}}).AsSelector()
	require.EqualError(t, err, `"Like" is not a valid label selector operator`)

	s, err := (&LabelSelector{MatchLabels: map[string]string{"b": "2", "a": "1"},
		MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: LabelSelectorOpIn, Values: []string{"3", "1"}}}}).AsSelector()
	require.NoError(t, err)
	assert.Equal(t, "a=1,a in (1,3),b=2", s.String())
}

func TestSelectorHelpers(t *testing.T) {
	assert.True(t, Everything().Matches(nil))
	assert.True(t, Everything().Empty())
	assert.False(t, Nothing().Matches(map[string]string{}))
	assert.False(t, Nothing().Empty())
	s := SelectorFromSet(map[string]string{"b": "2", "a": "1"})
	assert.Equal(t, "a=1,b=2", s.String())
	assert.True(t, s.Matches(map[string]string{"a": "1", "b": "2", "c": "3"}))
	assert.True(t, SelectorFromSet(nil).Empty())
	r, err := NewRequirement("k", OpIn, []string{"b", "a", "b"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, r.Values())
	assert.Equal(t, "k", r.Key())
	assert.Equal(t, OpIn, r.Operator())
	_, err = NewRequirement("k", "like", []string{"x"})
	require.EqualError(t, err, `operator: Unsupported value: "like": supported values: "=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt"`)
	_, err = NewRequirement("k", OpExists, []string{"x"})
	require.EqualError(t, err, `values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist`)
	_, err = NewRequirement("k", OpEquals, []string{"x", "y"})
	require.EqualError(t, err, `values: Invalid value: []string{"x", "y"}: exact-match compatibility requires one single value`)
}

// TestZeroRequirementString: printing never panics. apimachinery's
// Requirement.String (pkg/labels/selector.go) writes the key, the
// operator's text and the values, so a zero Requirement prints "", and a
// selector holding one prints as the others joined.
func TestZeroRequirementString(t *testing.T) {
	require.NotPanics(t, func() { _ = Requirement{}.String() })
	require.Equal(t, "", Requirement{}.String())
	r, err := NewRequirement("env", OpEquals, []string{"prod"})
	require.NoError(t, err)
	require.Equal(t, ",env=prod", Everything().Add(Requirement{}, r).String())
}

// TestParseSelectorLikeApimachinery: inputs whose meaning comes from
// apimachinery's parser (pkg/labels/selector.go): "()" is the set {""}
// (parseValues), an empty slot is the empty value (parseIdentifiersList),
// and "in" and "notin" are identifiers wherever a key or a value is
// expected (Parser.consume in the Values context).
func TestParseSelectorLikeApimachinery(t *testing.T) {
	cases := []struct {
		in       string
		match    []map[string]string
		mismatch []map[string]string
	}{
		{"x in ()", []map[string]string{{"x": ""}}, []map[string]string{{"x": "a"}, {}}},
		{"x notin ( )", []map[string]string{{}, {"x": "a"}}, []map[string]string{{"x": ""}}},
		{"a in (x,notin)", []map[string]string{{"a": "notin"}, {"a": "x"}}, []map[string]string{{"a": "in"}}},
		{"notin=a", []map[string]string{{"notin": "a"}}, []map[string]string{{"notin": "b"}}},
		{"in in (in)", []map[string]string{{"in": "in"}}, []map[string]string{{"in": "x"}}},
		{"!in", []map[string]string{{}}, []map[string]string{{"in": ""}}},
		{"a in (abc,,def)", []map[string]string{{"a": ""}, {"a": "def"}}, []map[string]string{{"a": "x"}}},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			sel, err := ParseSelector(c.in)
			require.NoError(t, err)
			for _, l := range c.match {
				assert.True(t, sel.Matches(l), "%v", l)
			}
			for _, l := range c.mismatch {
				assert.False(t, sel.Matches(l), "%v", l)
			}
			back, err := ParseSelector(sel.String())
			require.NoError(t, err, sel.String())
			assert.Equal(t, sel.String(), back.String())
		})
	}
}
