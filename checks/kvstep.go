package checks

import "github.com/kubesim/kubesim/trace/etcdtrace"

// kvStep is KVModel's step: whether out is a legal answer to in on state
// s, and the state after it. It never changes s.
func kvStep(s *kvState, in KVInput, out KVOutput) (bool, *kvState) {
	t := kvOp{base: s, out: out}
	switch in.Kind {
	case etcdtrace.OpGet:
		if out.Unknown {
			return true, s
		}
		if in.End != "" {
			return t.verdict(t.readRange(keyRange{in.Key, in.End}, 0))
		}
		return t.verdict(t.readKey(in.Key))
	case etcdtrace.OpPut:
		t.put(in.Key, in.Value)
		return t.finish()
	case etcdtrace.OpDelete:
		deleted := t.remove(in.Key)
		return t.verdict(out.Unknown || out.Succeeded == deleted)
	case etcdtrace.OpCAS:
		held := t.absent(in.Key)
		if !in.ExpectAbsent {
			e, ok := t.cur().get(in.Key)
			held = ok && e.value == in.Expect
		}
		if held {
			t.put(in.Key, in.Value)
		}
		return t.verdict(out.Unknown || out.Succeeded == held)
	case etcdtrace.OpTxn:
		return t.txn(in)
	}
	return false, s
}

// kvOp is one operation being stepped: the state before it, its answer,
// and the state it builds (copied on the first change).
type kvOp struct {
	base    *kvState
	out     KVOutput
	next    *kvState
	wrote   bool
	learned int64 // the highest revision a read learned
}

// cur is the state as the operation sees it now.
func (t *kvOp) cur() *kvState {
	if t.next != nil {
		return t.next
	}
	return t.base
}

// mut is the state being built, copied from base on first use.
func (t *kvOp) mut() *kvState {
	if t.next == nil {
		t.next = t.base.clone()
	}
	return t.next
}

// writeRev is the revision of the operation's writes: its answer's header
// revision, or, when unknown, one above every write before it.
func (t *kvOp) writeRev() kvRev {
	if t.out.Unknown {
		return kvRev{lo: t.base.rev}
	}
	return revAt(t.out.Rev, t.base.rev)
}

func (t *kvOp) absent(key string) bool {
	_, ok := t.cur().get(key)
	return !ok
}

// put writes value under key, as etcd's put: the version counts puts
// since creation, and the create revision is kept while the key lives.
func (t *kvOp) put(key, value string) {
	rev := t.writeRev()
	e, ok := t.cur().get(key)
	if ok {
		e.value, e.version, e.mod = value, e.version+1, rev
	} else {
		e = kvEntry{key: key, value: value, version: 1, mod: rev, create: rev}
	}
	t.mut().set(e)
	t.wrote = true
}

// remove deletes key and reports whether it was present.
func (t *kvOp) remove(key string) bool {
	if t.absent(key) {
		return false
	}
	t.mut().remove(key)
	t.wrote = true
	return true
}

// readKey checks a single-key get's answer.
func (t *kvOp) readKey(key string) bool {
	o := t.out
	e, ok := t.cur().get(key)
	if o.Found != ok {
		return false
	}
	if !ok {
		return true
	}
	return o.Value == e.value && (o.Version == 0 || o.Version == e.version) && t.check(e, o.ModRev, o.CreateRev)
}

// readRange checks the keys the answer lists for operation op against the
// present keys of r.
func (t *kvOp) readRange(r keyRange, op int) bool {
	want := t.cur().span(r)
	n := 0
	for _, kv := range t.out.KVs {
		if kv.Op != op {
			continue
		}
		if n >= len(want) {
			return false
		}
		e := want[n]
		n++
		if kv.Key != e.key || kv.Value != e.value || (kv.Version != 0 && kv.Version != e.version) {
			return false
		}
		if !t.check(e, kv.ModRev, kv.CreateRev) {
			return false
		}
		// Learning may have rebuilt the state: reload what is left.
		want = t.cur().span(r)
	}
	return n == len(want)
}

// check verifies the revisions a read reported for e (0: not recorded)
// and learns the ones the model did not know.
func (t *kvOp) check(e kvEntry, mod, create int64) bool {
	if !e.mod.fits(mod) || !e.create.fits(create) {
		return false
	}
	if l := e.mod.learn(mod); l != e.mod {
		e.mod = l
		t.learned = max(t.learned, mod)
		t.mut().set(e)
	}
	if l := e.create.learn(create); l != e.create {
		e.create = l
		t.learned = max(t.learned, create)
		t.mut().set(e)
	}
	return true
}

// verdict is finish if ok, else an illegal answer.
func (t *kvOp) verdict(ok bool) (bool, *kvState) {
	if !ok {
		return false, t.base
	}
	return t.finish()
}

// finish checks the answer's header revision and returns the verdict and
// the next state. A write's revision is above every write before it; a
// read's header is at least that revision.
func (t *kvOp) finish() (bool, *kvState) {
	rev := max(t.base.rev, t.learned)
	known := !t.out.Unknown && t.out.Rev != 0
	switch {
	case t.wrote && known:
		if t.out.Rev <= t.base.rev || t.out.Rev < t.learned {
			return false, t.base
		}
		rev = t.out.Rev
	case !t.wrote && known && t.out.Rev < rev:
		return false, t.base
	}
	if t.next == nil {
		return true, t.base
	}
	t.next.rev = rev
	return true, t.next
}

// txn runs a multi-op txn: its compares pick the branch, whose ops run in
// order, each read seeing the writes before it.
func (t *kvOp) txn(in KVInput) (bool, *kvState) {
	held, determined := true, true
	for _, c := range in.Compares {
		h, d := t.compare(c)
		if d && !h {
			held, determined = false, true
			break
		}
		determined = determined && d
	}
	if !determined {
		// A compare on a mod revision the model does not know: the
		// answer says which branch ran (an unknown one is taken to have
		// failed). A success teaches the revision.
		held = !t.out.Unknown && t.out.Succeeded
		if held {
			for _, c := range in.Compares {
				if e, ok := t.cur().get(c.Key); ok && c.Target == etcdtrace.CmpMod && e.mod.known == 0 {
					if !t.check(e, c.ModRev, 0) {
						return false, t.base
					}
				}
			}
		}
	}
	if !t.out.Unknown && t.out.Succeeded != held {
		return false, t.base
	}
	n := 0
	for _, op := range in.Ops {
		if op.Else == held {
			continue
		}
		switch op.Type {
		case etcdtrace.TxnPut:
			t.put(op.Key, op.Value)
		case etcdtrace.TxnDelete:
			t.remove(op.Key)
		case etcdtrace.TxnRange:
			if !t.out.Unknown && !t.readRange(keyRange{op.Key, op.End}, n) {
				return false, t.base
			}
		default:
			return false, t.base
		}
		n++
	}
	return t.finish()
}

// compare evaluates one compare on the state before the txn: whether it
// holds, and whether the model can tell.
func (t *kvOp) compare(c etcdtrace.Compare) (held, determined bool) {
	e, ok := t.cur().get(c.Key)
	switch c.Target {
	case etcdtrace.CmpValue:
		return ok && e.value == c.Value, true
	case etcdtrace.CmpVersion:
		return ok && e.version == c.Version || !ok && c.Version == 0, true
	case etcdtrace.CmpMod:
		switch {
		case !ok:
			return c.ModRev == 0, true
		case e.mod.known != 0:
			return e.mod.known == c.ModRev, true
		case c.ModRev <= e.mod.lo:
			return false, true // the unknown write came after revision lo
		}
		return false, false
	}
	return false, true
}
