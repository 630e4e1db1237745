package model

import (
	"fmt"
	"strings"
)

// ParseSelector parses the string form of a label selector used in list and
// watch options, as labels.Parse:
//
//	app=web,tier!=db,env in (a,b),!legacy
//
// Requirements are separated by commas and ANDed. Each is "key" (exists),
// "!key" (does not exist), "key=value" or "key==value", "key!=value"
// (absent keys match), "key in (v1,v2)", "key notin (v1,v2)" (absent keys
// match), "key>n" or "key<n" (integer comparison). Whitespace around tokens
// is ignored; "key=" means the empty value. The empty string selects
// everything. Keys and values are checked as NewRequirement does.
func ParseSelector(s string) (Selector, error) {
	p := &selParser{l: selLexer{s: s}}
	reqs, err := p.parse()
	if err != nil {
		return Selector{}, fmt.Errorf("couldn't parse the selector string %q: %w", s, err)
	}
	return Everything().Add(reqs...), nil
}

// MustParseSelector is ParseSelector that panics on error, for literals.
func MustParseSelector(s string) Selector {
	sel, err := ParseSelector(s)
	if err != nil {
		panic(err)
	}
	return sel
}

type selTok int

const (
	tokEnd selTok = iota
	tokIdent
	tokBang   // !
	tokNeq    // !=
	tokEq     // =
	tokDeq    // ==
	tokIn     // in
	tokNotIn  // notin
	tokGt     // >
	tokLt     // <
	tokLParen // (
	tokRParen // )
	tokComma  // ,
)

// selPunct are the tokens of "(),<>", in that order.
var selPunct = [...]selTok{tokLParen, tokRParen, tokComma, tokLt, tokGt}

type selLexer struct {
	s   string
	pos int
}

func isSelSpecial(c byte) bool {
	return strings.IndexByte("=!(),<>", c) >= 0
}

func isSelSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// next returns the next token and its literal text.
func (l *selLexer) next() (selTok, string) {
	for l.pos < len(l.s) && isSelSpace(l.s[l.pos]) {
		l.pos++
	}
	if l.pos >= len(l.s) {
		return tokEnd, "end of string"
	}
	c := l.s[l.pos]
	two := func(second byte, one, both selTok) (selTok, string) {
		if l.pos+1 < len(l.s) && l.s[l.pos+1] == second {
			l.pos += 2
			return both, l.s[l.pos-2 : l.pos]
		}
		l.pos++
		return one, l.s[l.pos-1 : l.pos]
	}
	switch c {
	case '!':
		return two('=', tokBang, tokNeq)
	case '=':
		return two('=', tokEq, tokDeq)
	case '(', ')', ',', '<', '>':
		l.pos++
		return selPunct[strings.IndexByte("(),<>", c)], string(c)
	}
	start := l.pos
	for l.pos < len(l.s) && !isSelSpace(l.s[l.pos]) && !isSelSpecial(l.s[l.pos]) {
		l.pos++
	}
	lit := l.s[start:l.pos]
	switch lit {
	case "in":
		return tokIn, lit
	case "notin":
		return tokNotIn, lit
	}
	return tokIdent, lit
}

type selParser struct {
	l selLexer
}

// isIdent reports whether t can be a key or a value: as apimachinery's
// Parser.consume in its Values context, the words "in" and "notin" are
// identifiers wherever an identifier is expected.
func isIdent(t selTok) bool { return t == tokIdent || t == tokIn || t == tokNotIn }

func (p *selParser) peek() (selTok, string) {
	save := p.l.pos
	t, lit := p.l.next()
	p.l.pos = save
	return t, lit
}

func (p *selParser) parse() ([]Requirement, error) {
	var reqs []Requirement
	if t, _ := p.peek(); t == tokEnd {
		return nil, nil
	}
	for {
		t, lit := p.peek()
		if !isIdent(t) && t != tokBang {
			return nil, fmt.Errorf("found '%s', expected: !, identifier, or 'end of string'", lit)
		}
		r, err := p.parseRequirement()
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
		t, lit = p.l.next()
		switch t {
		case tokEnd:
			return reqs, nil
		case tokComma:
			if t2, lit2 := p.peek(); !isIdent(t2) && t2 != tokBang {
				return nil, fmt.Errorf("found '%s', expected: identifier after ','", lit2)
			}
		default:
			return nil, fmt.Errorf("found '%s', expected: ',' or 'end of string'", lit)
		}
	}
}

func (p *selParser) parseRequirement() (Requirement, error) {
	t, lit := p.l.next()
	if t == tokBang {
		t, lit = p.l.next()
		if !isIdent(t) {
			return Requirement{}, fmt.Errorf("found '%s', expected: identifier after '!'", lit)
		}
		return NewRequirement(lit, OpDoesNotExist, nil)
	}
	key := lit
	if t, _ := p.peek(); t == tokEnd || t == tokComma {
		return NewRequirement(key, OpExists, nil)
	}
	t, lit = p.l.next()
	var op Operator
	switch t {
	case tokEq:
		op = OpEquals
	case tokDeq:
		op = OpDoubleEquals
	case tokNeq:
		op = OpNotEquals
	case tokIn:
		op = OpIn
	case tokNotIn:
		op = OpNotIn
	case tokGt:
		op = OpGreaterThan
	case tokLt:
		op = OpLessThan
	default:
		return Requirement{}, fmt.Errorf("found '%s', expected: '=', '!=', '==', 'in', 'notin', '>' or '<'", lit)
	}
	var vals []string
	switch op {
	case OpIn, OpNotIn:
		var err error
		if vals, err = p.parseValueList(); err != nil {
			return Requirement{}, err
		}
	default:
		t, lit := p.peek()
		switch {
		case isIdent(t):
			p.l.next()
			vals = []string{lit}
		case (t == tokEnd || t == tokComma) && op != OpGreaterThan && op != OpLessThan:
			vals = []string{""}
		default:
			return Requirement{}, fmt.Errorf("found '%s', expected: identifier", lit)
		}
	}
	return NewRequirement(key, op, vals)
}

// parseValueList parses "(v1,v2,...)"; an empty slot ("(a,)") is the empty
// value, and so is "()" (apimachinery's parseValues: sets.NewString("")).
func (p *selParser) parseValueList() ([]string, error) {
	if t, lit := p.l.next(); t != tokLParen {
		return nil, fmt.Errorf("found '%s', expected: '('", lit)
	}
	vals := []string{}
	if t, _ := p.peek(); t == tokRParen {
		p.l.next()
		return []string{""}, nil
	}
	for {
		t, lit := p.peek()
		switch {
		case isIdent(t):
			p.l.next()
			vals = append(vals, lit)
		case t == tokComma || t == tokRParen:
			vals = append(vals, "")
		default:
			return nil, fmt.Errorf("found '%s', expected: identifier, ',' or ')'", lit)
		}
		t, lit = p.l.next()
		switch t {
		case tokComma:
		case tokRParen:
			return vals, nil
		default:
			return nil, fmt.Errorf("found '%s', expected: ',' or ')'", lit)
		}
	}
}
