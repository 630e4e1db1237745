package apiload

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
)

// Defaults of the patch workload.
const (
	// DefaultPatchObject is the name of the Lease the patchers patch.
	DefaultPatchObject = "patched"
	// PatchAnnotationPrefix prefixes each patcher's annotation key:
	// "kubesim.io/patch-<patcher>".
	PatchAnnotationPrefix = "kubesim.io/patch-"
)

// PatcherConfig configures a patcher; an operation is a patch. Its Name
// is also the patcher's name in its annotation key.
type PatcherConfig struct {
	WorkloadConfig
	// Object names the Lease, in Namespace; default DefaultPatchObject.
	Object string
}

// patcher is one writer of the patch workload.
type patcher struct {
	h    *sim.Host
	cfg  PatcherConfig
	name string
	ls   *client.ResourceClient
	rng  *sim.Stream
	n    int    // the value of its last patch
	rv   string // the resourceVersion of its last answer; "" unknown
}

// BootPatcher returns the Boot function of a patcher: one JSON merge patch
// at a time until cfg.Until, each setting its own annotation
// (PatchAnnotationPrefix + name) of one Lease to the next integer, as
// kubectl patch --type=merge does. A third of the patches, when it knows a
// resourceVersion (its last answer's), carry it as metadata.resourceVersion:
// a precondition, 409 Conflict when the Lease changed since. The first
// patcher to find the Lease missing creates it.
func BootPatcher(cfg PatcherConfig) func(h *sim.Host) {
	cfg.WorkloadConfig = cfg.WorkloadConfig.withDefaults()
	cfg.Object = cmp.Or(cfg.Object, DefaultPatchObject)
	return func(h *sim.Host) {
		k := &patcher{h: h, cfg: cfg, name: defaults.HostName(cfg.Name, h), rng: h.Rand("apiload/patch")}
		c := cfg.newClient(h, client.Config{ValueOf: StateValueOf, PatchValueOf: PatchValueOf})
		k.ls = c.Leases(cfg.Namespace)
		k.next()
	}
}

// next thinks, then patches.
func (k *patcher) next() {
	think(k.h, k.rng, k.cfg.Think, k.cfg.Until, "apiload-patch-think", k.patch)
}

// patch sends the next patch and learns from its answer.
func (k *patcher) patch() {
	k.n++
	meta := map[string]any{"annotations": map[string]string{PatchAnnotationPrefix + k.name: strconv.Itoa(k.n)}}
	if k.rng.IntN(3) == 0 && k.rv != "" {
		meta["resourceVersion"] = k.rv
	}
	body, _ := json.Marshal(map[string]any{"metadata": meta})
	k.ls.Patch(k.cfg.Object, body, func(obj model.Object, err error) {
		k.rv = ""
		switch {
		case err == nil:
			k.rv = obj.GetObjectMeta().ResourceVersion
		case client.IsNotFound(err):
			k.ls.Create(&model.Lease{ObjectMeta: model.ObjectMeta{Namespace: k.cfg.Namespace, Name: k.cfg.Object}},
				func(model.Object, error) { k.next() })
			return
		}
		k.next()
	})
}

// PatchValueOf is the trace value of a patcher's patch: "<patcher>=<n>"
// for each patch annotation it sets, sorted, comma-separated.
func PatchValueOf(patch []byte) string {
	var p struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if json.Unmarshal(patch, &p) != nil {
		return ""
	}
	return patchValues(p.Metadata.Annotations)
}

// patchValues lists the patch annotations of annotations as
// "<patcher>=<n>", sorted, comma-separated.
func patchValues(annotations map[string]string) string {
	var out []string
	for _, k := range sim.SortedKeys(annotations) {
		if name, ok := strings.CutPrefix(k, PatchAnnotationPrefix); ok {
			out = append(out, name+"="+annotations[k])
		}
	}
	return strings.Join(out, ",")
}

// StateValueOf is the trace value of an object of any API workload: the
// patchers' values for a Lease they patched, StatusValueOf otherwise.
func StateValueOf(obj model.Object) string {
	if l, ok := obj.(*model.Lease); ok && slices.ContainsFunc(sim.SortedKeys(l.Annotations), func(k string) bool {
		return strings.HasPrefix(k, PatchAnnotationPrefix)
	}) {
		return patchValues(l.Annotations)
	}
	return StatusValueOf(obj)
}
