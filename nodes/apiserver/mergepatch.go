package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/kubesim/kubesim/sim"
)

// mergePatch applies a JSON merge patch (RFC 7386) to the JSON document
// doc: objects merge key by key, null deletes a key, anything else
// replaces. Numbers are kept as written (json.Number), so int64 fields
// survive exactly. replaceMaps is the merge-patch-replaces-maps ablation:
// an object below the top level replaces the target's instead of merging
// into it.
func mergePatch(doc, patch []byte, replaceMaps bool) ([]byte, error) {
	target, err := decodeJSON(doc)
	if err != nil {
		return nil, err
	}
	p, err := decodeJSON(patch)
	if err != nil {
		return nil, err
	}
	if _, ok := p.(map[string]any); !ok {
		return nil, errors.New("a merge patch must be a JSON object")
	}
	return json.Marshal(mergeValue(target, p, 0, replaceMaps))
}

// mergeValue is RFC 7386's MergePatch(Target, Patch), at nesting depth.
func mergeValue(target, patch any, depth int, replaceMaps bool) any {
	pm, ok := patch.(map[string]any)
	if !ok || (replaceMaps && depth > 1) {
		return patch
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{}
	}
	for _, k := range sim.SortedKeys(pm) {
		if v := pm[k]; v == nil {
			delete(tm, k)
		} else {
			tm[k] = mergeValue(tm[k], v, depth+1, replaceMaps)
		}
	}
	return tm
}

// decodeJSON parses one JSON value, keeping numbers as json.Number.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}
