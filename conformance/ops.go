// Package conformance runs the same operation sequences against an embedded
// real etcd and against kubesim's simulated etcd member, and compares every
// response field the simulator models. See README.md.
package conformance

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Kind is the kind of an operation.
type Kind uint8

// The operation kinds. Inside a Txn branch only KPut, KGet, KDelete and KTxn
// appear.
const (
	KPut Kind = iota + 1
	KGet
	KDelete
	KTxn
	KCompact
	KWatch
	// The member calls (members.go): the member list, adding a member (a
	// learner with Learner set), promoting and removing member Member.
	KMemberList
	KMemberAdd
	KMemberPromote
	KMemberRemove
	// KSnapshot saves a snapshot of the member (snapshot.go) and reads its
	// status; KRestore restores the last one into a new single-member
	// cluster (with Bump and MarkCompacted), which later ops then use.
	KSnapshot
	KRestore
)

var kindNames = map[Kind]string{KPut: "KPut", KGet: "KGet", KDelete: "KDelete", KTxn: "KTxn", KCompact: "KCompact", KWatch: "KWatch",
	KMemberList: "KMemberList", KMemberAdd: "KMemberAdd", KMemberPromote: "KMemberPromote", KMemberRemove: "KMemberRemove",
	KSnapshot: "KSnapshot", KRestore: "KRestore"}

// String returns the constant's name, so that printed ops paste as Go.
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Op is one operation of a sequence, or of a txn branch. Keys are relative to
// the sequence's key prefix. Revisions are simulator revisions: 1 is the
// revision of the empty store at the start of the sequence, and the real etcd
// side maps them by offset. Only the fields of Kind are used.
type Op struct {
	Kind Kind
	// Key is the key, or the start of the range [Key, End).
	Key string
	// End is the range end; empty for a single key.
	End string
	// Value is the value of a put.
	Value string
	// Rev is the read revision (KGet, 0 = latest), the compact revision
	// (KCompact) or the start revision (KWatch).
	Rev int64
	// Limit caps a read (KGet).
	Limit int64
	// PrevKV asks a put, a delete or a watch for previous versions.
	PrevKV bool
	// IgnoreValue makes a put keep the key's current value (the put must
	// then carry no value, and the key must exist).
	IgnoreValue bool
	// Serializable makes a top-level read serializable.
	Serializable bool
	// KeysOnly and CountOnly are read options, used inside txns only (the
	// simulated client's Get has neither).
	KeysOnly  bool
	CountOnly bool
	// Txn is the transaction of a KTxn.
	Txn *Txn
	// Member is the member a KMemberPromote or KMemberRemove names, by
	// order of creation: 0 is the member the sequence starts with, k the
	// k-th member added; one never added stands for an unknown ID.
	Member int
	// Learner makes a KMemberAdd add a learner rather than a voter.
	Learner bool
	// Bump and MarkCompacted are a KRestore's --bump-revision and
	// --mark-compacted.
	Bump          int64
	MarkCompacted bool
}

// Txn is a transaction: if every compare holds, Then runs, else Else.
type Txn struct {
	Cmps []Cmp
	Then []Op
	Else []Op
}

// Cmp is one compare of a txn.
type Cmp struct {
	// Key and End select the key or range [Key, End).
	Key string
	End string
	// Target is "version", "create", "mod" or "value".
	Target string
	// Result is "=", "!=", ">" or "<".
	Result string
	// Num is the operand of version, create and mod compares; create and
	// mod operands are simulator revisions (0 stays 0).
	Num int64
	// Value is the operand of a value compare.
	Value string
}

// GoString prints the op as a Go composite literal (non-zero fields only), so
// that a failing sequence can be pasted into a regression test.
func (o Op) GoString() string {
	var f []string
	f = append(f, "Kind: "+o.Kind.String())
	str := func(name, v string) {
		if v != "" {
			f = append(f, name+": "+strconv.Quote(v))
		}
	}
	num := func(name string, v int64) {
		if v != 0 {
			f = append(f, name+": "+strconv.FormatInt(v, 10))
		}
	}
	flag := func(name string, v bool) {
		if v {
			f = append(f, name+": true")
		}
	}
	str("Key", o.Key)
	str("End", o.End)
	str("Value", o.Value)
	num("Rev", o.Rev)
	num("Limit", o.Limit)
	flag("PrevKV", o.PrevKV)
	flag("IgnoreValue", o.IgnoreValue)
	flag("Serializable", o.Serializable)
	flag("KeysOnly", o.KeysOnly)
	flag("CountOnly", o.CountOnly)
	num("Member", int64(o.Member))
	flag("Learner", o.Learner)
	num("Bump", o.Bump)
	flag("MarkCompacted", o.MarkCompacted)
	if o.Txn != nil {
		f = append(f, "Txn: "+o.Txn.GoString())
	}
	return "{" + strings.Join(f, ", ") + "}"
}

// GoString prints the txn as a Go composite literal.
func (t *Txn) GoString() string {
	var f []string
	if len(t.Cmps) > 0 {
		var cs []string
		for _, c := range t.Cmps {
			cs = append(cs, c.GoString())
		}
		f = append(f, "Cmps: []Cmp{"+strings.Join(cs, ", ")+"}")
	}
	ops := func(name string, os []Op) {
		if len(os) > 0 {
			var ss []string
			for _, o := range os {
				ss = append(ss, o.GoString())
			}
			f = append(f, name+": []Op{"+strings.Join(ss, ", ")+"}")
		}
	}
	ops("Then", t.Then)
	ops("Else", t.Else)
	return "&Txn{" + strings.Join(f, ", ") + "}"
}

// GoString prints the compare as a Go composite literal.
func (c Cmp) GoString() string {
	s := fmt.Sprintf("{Key: %q", c.Key)
	if c.End != "" {
		s += fmt.Sprintf(", End: %q", c.End)
	}
	s += fmt.Sprintf(", Target: %q, Result: %q", c.Target, c.Result)
	if c.Target == "value" {
		s += fmt.Sprintf(", Value: %q", c.Value)
	} else {
		s += fmt.Sprintf(", Num: %d", c.Num)
	}
	return s + "}"
}

// FormatSeq prints a sequence as a Go slice literal, one op per line.
func FormatSeq(ops []Op) string {
	var b strings.Builder
	b.WriteString("[]Op{\n")
	for i, o := range ops {
		fmt.Fprintf(&b, "\t%s, // %d\n", o.GoString(), i)
	}
	b.WriteString("}")
	return b.String()
}

// keys is the small key space of every sequence.
var keys = []string{"a", "b", "c", "d", "e"}

// gen draws random operations. It is told the simulator's current and
// compact revisions before each op, so that it targets revisions around the
// interesting ones (past, compacted, current, future).
type gen struct {
	r *rand.Rand
	// snap is the state of a snapshot sequence (snapshot.go).
	snap snapGen
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, 0x6b75626573696d))}
}

func (g *gen) key() string { return keys[g.r.IntN(len(keys))] }

// span returns a key and, half of the time, a range end after it (possibly
// past the last key).
func (g *gen) span() (string, string) {
	i := g.r.IntN(len(keys))
	if g.r.IntN(2) == 0 {
		return keys[i], ""
	}
	j := i + 1 + g.r.IntN(len(keys)-i)
	if j == len(keys) {
		return keys[i], "z"
	}
	return keys[i], keys[j]
}

func (g *gen) value() string {
	if g.r.IntN(10) == 0 {
		return ""
	}
	return "v" + strconv.Itoa(g.r.IntN(20))
}

// rev picks a revision: mostly within [1, cur], sometimes just compacted,
// at the compact revision, or in the future.
func (g *gen) rev(cur, compact int64) int64 {
	switch n := g.r.IntN(20); {
	case n == 0:
		return cur + 1 + g.r.Int64N(2)
	case n == 1 && compact > 1:
		return compact - 1
	case n == 2 && compact > 0:
		return compact
	default:
		return 1 + g.r.Int64N(cur)
	}
}

// next draws the next top-level op.
func (g *gen) next(cur, compact int64) Op {
	switch n := g.r.IntN(100); {
	case n < 30:
		return g.put(4)
	case n < 50:
		o := g.get(cur, compact)
		o.Serializable = g.r.IntN(4) == 0
		o.KeysOnly, o.CountOnly = false, false
		return o
	case n < 60:
		k, e := g.span()
		return Op{Kind: KDelete, Key: k, End: e, PrevKV: g.r.IntN(3) == 0}
	case n < 82:
		return Op{Kind: KTxn, Txn: g.txn(cur, compact, 0)}
	case n < 88:
		rev := cur - g.r.Int64N(4)
		switch g.r.IntN(6) {
		case 0:
			rev = cur + 1
		case 1:
			rev = compact
		}
		return Op{Kind: KCompact, Rev: max(rev, 1)}
	default:
		k, e := g.span()
		if g.r.IntN(3) == 0 {
			k, e = "a", "z"
		}
		rev := g.rev(cur, compact)
		if g.r.IntN(10) == 0 {
			rev = 0 // from now on
		}
		return Op{Kind: KWatch, Key: k, End: e, Rev: rev, PrevKV: g.r.IntN(2) == 0}
	}
}

// put draws a put, asking for the previous version one time in prev.
func (g *gen) put(prev int) Op {
	o := Op{Kind: KPut, Key: g.key(), Value: g.value(), PrevKV: g.r.IntN(prev) == 0}
	if g.r.IntN(10) == 0 {
		o.IgnoreValue = true
		if g.r.IntN(4) != 0 {
			o.Value = ""
		}
	}
	return o
}

// get draws a read.
func (g *gen) get(cur, compact int64) Op {
	k, e := g.span()
	o := Op{Kind: KGet, Key: k, End: e}
	if g.r.IntN(2) == 0 {
		o.Rev = g.rev(cur, compact)
	}
	if e != "" && g.r.IntN(3) == 0 {
		o.Limit = 1 + g.r.Int64N(2)
	}
	switch g.r.IntN(6) {
	case 0:
		o.KeysOnly = true
	case 1:
		o.CountOnly = true
	}
	return o
}

// txn draws a transaction; depth bounds nesting.
func (g *gen) txn(cur, compact int64, depth int) *Txn {
	t := &Txn{}
	for range g.r.IntN(3) {
		t.Cmps = append(t.Cmps, g.cmp(cur))
	}
	t.Then = g.branch(cur, compact, depth)
	t.Else = g.branch(cur, compact, depth)
	return t
}

func (g *gen) branch(cur, compact int64, depth int) []Op {
	var ops []Op
	for range g.r.IntN(4) {
		switch n := g.r.IntN(10); {
		case n < 4:
			ops = append(ops, g.put(3))
		case n < 7:
			ops = append(ops, g.get(cur, compact))
		case n < 9:
			k, e := g.span()
			ops = append(ops, Op{Kind: KDelete, Key: k, End: e, PrevKV: g.r.IntN(2) == 0})
		default:
			if depth < 1 {
				ops = append(ops, Op{Kind: KTxn, Txn: g.txn(cur, compact, depth+1)})
			}
		}
	}
	return ops
}

var (
	cmpTargets = []string{"version", "create", "mod", "value"}
	cmpResults = []string{"=", "!=", ">", "<"}
)

func (g *gen) cmp(cur int64) Cmp {
	c := Cmp{Key: g.key(), Target: cmpTargets[g.r.IntN(len(cmpTargets))], Result: cmpResults[g.r.IntN(len(cmpResults))]}
	if g.r.IntN(5) == 0 {
		c.Key, c.End = g.span()
	}
	switch c.Target {
	case "version":
		c.Num = g.r.Int64N(4)
	case "value":
		c.Value = g.value()
	default:
		if g.r.IntN(4) == 0 {
			c.Num = 0
		} else {
			c.Num = 1 + g.r.Int64N(cur+1)
		}
	}
	return c
}
