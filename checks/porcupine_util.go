package checks

import (
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/kubesim/kubesim/sim"
)

// keyedHistory is a history ready for porcupine, split by key: for each key
// (in key order) its operations in call order, and for each operation the
// index of the recorded call it came from (a callSource index).
type keyedHistory struct {
	keys  []string
	parts [][]porcupine.Operation
	src   [][]int
}

// keyedBuilder collects the operations of a keyedHistory.
type keyedBuilder struct {
	index map[string]int // key -> position in parts
	parts [][]porcupine.Operation
	src   [][]int
}

// add appends op, from recorded call src, to key's history.
func (b *keyedBuilder) add(key string, src int, op porcupine.Operation) {
	if b.index == nil {
		b.index = map[string]int{}
	}
	k, ok := b.index[key]
	if !ok {
		k = len(b.parts)
		b.index[key] = k
		b.parts = append(b.parts, nil)
		b.src = append(b.src, nil)
	}
	b.parts[k] = append(b.parts[k], op)
	b.src[k] = append(b.src[k], src)
}

// build puts the keys in order.
func (b *keyedBuilder) build() keyedHistory {
	h := keyedHistory{keys: sim.SortedKeys(b.index)}
	for _, k := range h.keys {
		h.parts = append(h.parts, b.parts[b.index[k]])
		h.src = append(h.src, b.src[b.index[k]])
	}
	return h
}

// partitionOps splits a porcupine history by the key its inputs name,
// keeping each key's operations in history order; partitions come in key
// order. Both porcupine models (KVModel, APIModel) partition this way.
func partitionOps(history []porcupine.Operation, keyOf func(input any) string) [][]porcupine.Operation {
	byKey := map[string][]porcupine.Operation{}
	for _, op := range history {
		k := keyOf(op.Input)
		byKey[k] = append(byKey[k], op)
	}
	out := make([][]porcupine.Operation, 0, len(byKey))
	for _, k := range sim.SortedKeys(byKey) {
		out = append(out, byKey[k])
	}
	return out
}

// partitionEvents splits an event history the same way (a return goes with
// its call, by Id).
func partitionEvents(history []porcupine.Event, keyOf func(input any) string) [][]porcupine.Event {
	callKey := map[int]string{}
	byKey := map[string][]porcupine.Event{}
	for _, ev := range history {
		if ev.Kind == porcupine.CallEvent {
			callKey[ev.Id] = keyOf(ev.Value)
		}
		k := callKey[ev.Id]
		byKey[k] = append(byKey[k], ev)
	}
	out := make([][]porcupine.Event, 0, len(byKey))
	for _, k := range sim.SortedKeys(byKey) {
		out = append(out, byKey[k])
	}
	return out
}

// explainFailure picks, from porcupine's partial linearizations of one
// failing partition, the longest (ties broken by the smallest ids), replays
// it through model to the state it leaves, and names the culprit: the
// first-returning operation outside it, which no order could fit next. The
// culprit is -1 when every operation is in the prefix.
func explainFailure(model porcupine.Model, part []porcupine.Operation, partials [][]int) (prefix []int, state any, culprit int) {
	for _, l := range partials {
		if len(l) > len(prefix) || (len(l) == len(prefix) && slices.Compare(l, prefix) < 0) {
			prefix = l
		}
	}
	in := make([]bool, len(part))
	state = model.Init()
	for _, id := range prefix {
		in[id] = true
		_, state = model.Step(state, part[id].Input, part[id].Output)
	}
	culprit = -1
	for id := range part {
		if !in[id] && (culprit < 0 || part[id].Return < part[culprit].Return) {
			culprit = id
		}
	}
	return prefix, state, culprit
}
