package apiserver

import (
	"reflect"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// requestObject checks the body of create, update and update-status against
// the request (kind, name, namespace) and returns a copy the server may
// change, with its namespace filled in from the request.
func requestObject(req *apiwire.Request, res resourceInfo) (model.Object, *apiwire.Status) {
	if req.Object == nil {
		return nil, badRequest("%s requires an object", req.Verb)
	}
	if req.Object.Kind() != res.Kind {
		return nil, badRequest("the body of the request was of kind %s, not %s", req.Object.Kind(), res.Kind)
	}
	obj := req.Object.DeepCopyObject()
	if st := customBody(obj, res); st != nil {
		return nil, st
	}
	m := obj.GetObjectMeta()
	if req.Name != "" && m.Name != "" && req.Name != m.Name {
		return nil, badRequest("the name of the object (%s) does not match the name on the URL (%s)", m.Name, req.Name)
	}
	if m.Name == "" {
		m.Name = req.Name
	}
	if res.Namespaced {
		if req.Namespace != "" && m.Namespace != "" && req.Namespace != m.Namespace {
			return nil, badRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		if m.Namespace == "" {
			m.Namespace = req.Namespace
		}
	}
	return obj, nil
}

// statusField returns the addressable Status field of obj, or an invalid
// value for kinds without status (Lease).
func statusField(obj model.Object) reflect.Value {
	return reflect.ValueOf(obj).Elem().FieldByName("Status")
}

// specField returns the addressable Spec field of obj.
func specField(obj model.Object) reflect.Value {
	return reflect.ValueOf(obj).Elem().FieldByName("Spec")
}

// copyStatus sets dst's status to a deep copy of src's.
func copyStatus(dst, src model.Object) {
	d := statusField(dst)
	if !d.IsValid() {
		return
	}
	d.Set(statusField(src.DeepCopyObject()))
}

// copySpec sets dst's spec to a deep copy of src's.
func copySpec(dst, src model.Object) {
	specField(dst).Set(specField(src.DeepCopyObject()))
}

// specChanged reports whether the specs differ; for a kind without a spec
// (EndpointSlice), whether anything outside metadata differs, as the
// EndpointSlice strategy's PrepareForUpdate (pkg/registry/discovery/
// endpointslice/strategy.go) bumps generation on any such change.
func specChanged(a, b model.Object) bool {
	if sa := specField(a); sa.IsValid() {
		return !reflect.DeepEqual(sa.Interface(), specField(b).Interface())
	}
	ca, cb := a.DeepCopyObject(), b.DeepCopyObject()
	*ca.GetObjectMeta(), *cb.GetObjectMeta() = model.ObjectMeta{}, model.ObjectMeta{}
	*ca.GetTypeMeta(), *cb.GetTypeMeta() = model.TypeMeta{}, model.TypeMeta{}
	return !reflect.DeepEqual(ca, cb)
}

// prepareForCreate sets what the server owns on create.
func (s *Server) prepareForCreate(obj model.Object) {
	m := obj.GetObjectMeta()
	m.ResourceVersion = ""
	m.UID = s.newUID()
	m.CreationTimestamp = model.Time(s.h.WallClock())
	m.Generation = 1
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	switch o := obj.(type) {
	case *model.Pod:
		o.Status = model.PodStatus{Phase: model.PodPending}
	case *model.ReplicaSet:
		o.Status = model.ReplicaSetStatus{}
	case *model.Deployment:
		o.Status = model.DeploymentStatus{}
	}
}

// prepareForUpdate carries over what a client cannot change (UID when
// unset, creationTimestamp, deletion marks) and maintains generation: a
// spec change bumps it, or for a custom kind written through its main
// endpoint, any change outside metadata (customContentChanged; statusOnly
// is update-status, which never bumps it).
func prepareForUpdate(obj, old model.Object, res resourceInfo, statusOnly bool) {
	m, om := obj.GetObjectMeta(), old.GetObjectMeta()
	if m.UID == "" {
		m.UID = om.UID
	}
	m.CreationTimestamp = om.CreationTimestamp
	m.DeletionTimestamp = om.DeletionTimestamp
	m.DeletionGracePeriodSeconds = om.DeletionGracePeriodSeconds
	m.Generation = om.Generation
	keepClusterIP(obj, old)
	changed := specChanged(obj, old)
	if res.Custom != nil {
		changed = !statusOnly && customContentChanged(obj.(*model.CustomObject), old.(*model.CustomObject))
	}
	if changed {
		m.Generation++
	}
}

// newUID draws a UUID-shaped UID from the replica's stream.
func (s *Server) newUID() model.UID {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 36)
	for i := 0; i < 32; i++ {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b = append(b, '-')
		}
		b = append(b, hex[s.uids.IntN(16)])
	}
	return model.UID(b)
}

// admitCreate runs defaulting, the DefaultTolerationSeconds plugin for
// pods (with cfg's flags) and validation.
func admitCreate(obj model.Object, res resourceInfo, cfg Config) *apiwire.Status {
	if res.Custom != nil {
		return admitCustom(obj, nil, res)
	}
	model.SetDefaults(obj)
	if pod, ok := obj.(*model.Pod); ok {
		model.AddDefaultTolerationsOf(pod, cfg.DefaultNotReadyTolerationSeconds, cfg.DefaultUnreachableTolerationSeconds)
	}
	if errs := model.Validate(obj); len(errs) > 0 {
		return invalid(res, obj.GetObjectMeta().Name, errs)
	}
	return nil
}

// admitUpdate runs defaulting and update validation.
func admitUpdate(obj, old model.Object, res resourceInfo) *apiwire.Status {
	if res.Custom != nil {
		return admitCustom(obj, old, res)
	}
	model.SetDefaults(obj)
	if errs := model.ValidateUpdate(old, obj); len(errs) > 0 {
		return invalid(res, obj.GetObjectMeta().Name, errs)
	}
	return nil
}

// nodeOf is the node a pod is bound to, or a Node's own name.
func nodeOf(obj model.Object) string {
	switch o := obj.(type) {
	case *model.Pod:
		return o.Spec.NodeName
	case *model.Node:
		return o.Name
	}
	return ""
}
