package client

import (
	"encoding/json"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// ResourceClient is the client of one resource in one namespace (or all
// namespaces, or a cluster-scoped resource, with namespace ""), as a
// client-go typed client such as CoreV1().Pods(ns). Callbacks receive
// objects they own.
type ResourceClient struct {
	c         *Client
	resource  string
	namespace string
}

// Resource returns the client of resource (plural name, e.g. "pods") in
// namespace.
func (c *Client) Resource(resource, namespace string) *ResourceClient {
	return &ResourceClient{c: c, resource: resource, namespace: namespace}
}

// Pods returns the pods client of namespace.
func (c *Client) Pods(namespace string) *ResourceClient {
	return c.Resource(model.ResourcePodsName, namespace)
}

// Nodes returns the nodes client (cluster-scoped).
func (c *Client) Nodes() *ResourceClient { return c.Resource(model.ResourceNodesName, "") }

// ReplicaSets returns the replicasets client of namespace.
func (c *Client) ReplicaSets(namespace string) *ResourceClient {
	return c.Resource(model.ResourceReplicaSetsName, namespace)
}

// Deployments returns the deployments client of namespace.
func (c *Client) Deployments(namespace string) *ResourceClient {
	return c.Resource(model.ResourceDeploymentsName, namespace)
}

// Leases returns the leases client of namespace.
func (c *Client) Leases(namespace string) *ResourceClient {
	return c.Resource(model.ResourceLeasesName, namespace)
}

// Services returns the services client of namespace.
func (c *Client) Services(namespace string) *ResourceClient {
	return c.Resource(model.ResourceServicesName, namespace)
}

// EndpointSlices returns the endpointslices client of namespace.
func (c *Client) EndpointSlices(namespace string) *ResourceClient {
	return c.Resource(model.ResourceEndpointSlicesName, namespace)
}

// CustomResources returns the client of the custom kind def in namespace
// (namespace "" for a cluster-scoped kind, or all namespaces), as
// client-go's dynamic client's Resource(gvr).Namespace(ns): it sends and
// receives *model.CustomObject values. The API servers must serve the kind
// (their Config.Resources registers it); otherwise every call is 404.
func (c *Client) CustomResources(def model.CustomResourceDefinition, namespace string) *ResourceClient {
	return c.Resource(def.Plural, namespace)
}

// Client returns the underlying client.
func (r *ResourceClient) Client() *Client { return r.c }

// ResourceName returns the plural resource name.
func (r *ResourceClient) ResourceName() string { return r.resource }

// Namespace returns the namespace ("" for all, or cluster-scoped).
func (r *ResourceClient) Namespace() string { return r.namespace }

// ObjectCallback receives the object of a single-object call, or its error.
type ObjectCallback func(obj model.Object, err error)

// Create creates obj (a deep copy is sent) in the client's namespace, or in
// obj's own when the client has none.
func (r *ResourceClient) Create(obj model.Object, done ObjectCallback) {
	req := r.objectRequest(apiwire.VerbCreate, obj)
	r.single(req, r.c.cfg.ValueOf(obj), "", done)
}

// Get reads one object.
func (r *ResourceClient) Get(name string, opts GetOptions, done ObjectCallback) {
	req := &apiwire.Request{Verb: apiwire.VerbGet, Resource: r.resource, Namespace: r.namespace,
		Name: name, ResourceVersion: opts.ResourceVersion}
	r.single(req, "", "", done)
}

// Update replaces obj; its resourceVersion makes the update conditional
// (409 Conflict when stale), as in Kubernetes.
func (r *ResourceClient) Update(obj model.Object, done ObjectCallback) {
	req := r.objectRequest(apiwire.VerbUpdate, obj)
	r.single(req, r.c.cfg.ValueOf(obj), obj.GetObjectMeta().ResourceVersion, done)
}

// UpdateStatus replaces obj's status (the status subresource).
func (r *ResourceClient) UpdateStatus(obj model.Object, done ObjectCallback) {
	req := r.objectRequest(apiwire.VerbUpdateStatus, obj)
	r.single(req, r.c.cfg.ValueOf(obj), obj.GetObjectMeta().ResourceVersion, done)
}

// Patch applies a JSON merge patch (RFC 7386) to the named object. A
// metadata.resourceVersion in the patch is a precondition (409 Conflict
// when stale), and is traced as one.
func (r *ResourceClient) Patch(name string, patch []byte, done ObjectCallback) {
	req := &apiwire.Request{Verb: apiwire.VerbPatch, Resource: r.resource, Namespace: r.namespace,
		Name: name, Patch: append([]byte(nil), patch...)}
	value := ""
	if f := r.c.cfg.PatchValueOf; f != nil {
		value = f(patch)
	}
	r.single(req, value, patchPrecondition(patch), done)
}

// patchPrecondition returns the metadata.resourceVersion a merge patch
// carries, or "".
func patchPrecondition(patch []byte) string {
	var p struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(patch, &p) != nil {
		return ""
	}
	return p.Metadata.ResourceVersion
}

// Delete deletes the named object; done gets the object as deleted (or as
// marked for graceful deletion).
func (r *ResourceClient) Delete(name string, opts DeleteOptions, done ObjectCallback) {
	req := &apiwire.Request{Verb: apiwire.VerbDelete, Resource: r.resource, Namespace: r.namespace,
		Name: name, GracePeriodSeconds: opts.GracePeriodSeconds}
	precond := ""
	if p := opts.Preconditions; p != nil {
		cp := *p
		req.Preconditions = &cp
		precond = p.ResourceVersion
	}
	r.single(req, "", precond, done)
}

// Bind binds the named pod to nodeName (the pods/binding subresource).
func (r *ResourceClient) Bind(name, nodeName string, done ObjectCallback) {
	req := &apiwire.Request{Verb: apiwire.VerbBind, Resource: r.resource, Namespace: r.namespace,
		Name: name, NodeName: nodeName}
	r.single(req, "", "", done)
}

// List lists the resource.
func (r *ResourceClient) List(opts ListOptions, done func(*ObjectList, error)) {
	req := &apiwire.Request{Verb: apiwire.VerbList, Resource: r.resource, Namespace: r.namespace,
		ResourceVersion: opts.ResourceVersion, ResourceVersionMatch: opts.ResourceVersionMatch, LabelSelector: opts.LabelSelector,
		Limit: opts.Limit, Continue: opts.Continue}
	r.c.Do(req, func(resp *apiwire.Response, err error) {
		if err != nil {
			done(nil, err)
			return
		}
		done(&ObjectList{Items: resp.Items, ResourceVersion: resp.ResourceVersion, Continue: resp.Continue}, nil)
	})
}

// objectRequest builds a request carrying a deep copy of obj.
func (r *ResourceClient) objectRequest(verb apiwire.Verb, obj model.Object) *apiwire.Request {
	cp := obj.DeepCopyObject()
	ns := r.namespace
	if ns == "" {
		ns = cp.GetObjectMeta().Namespace
	}
	return &apiwire.Request{Verb: verb, Resource: r.resource, Namespace: ns,
		Name: cp.GetObjectMeta().Name, Object: cp}
}

// single sends a single-object call, tracing it when asked.
func (r *ResourceClient) single(req *apiwire.Request, value, precond string, done ObjectCallback) {
	c := r.c
	var op uint64
	if c.cfg.Tracing {
		op = c.nextOp()
		c.h.Emit(&apitrace.Call{Client: c.cfg.Name, Op: op, User: c.cfg.User, Verb: string(req.Verb),
			Resource: req.Resource, Key: model.NamespacedName{Namespace: req.Namespace, Name: req.Name}.String(),
			RV: req.ResourceVersion, Value: value, Precondition: precond})
	}
	c.Do(req, func(resp *apiwire.Response, err error) {
		var obj model.Object
		if resp != nil && err == nil {
			obj = resp.Object
		}
		if c.cfg.Tracing {
			ret := &apitrace.Return{Client: c.cfg.Name, Op: op}
			if resp != nil {
				ret.Code, ret.Reason, ret.Server = resp.Status.Code, string(resp.Status.Reason), resp.Server
			}
			if obj != nil {
				ret.Found, ret.Value, ret.RV = true, c.cfg.ValueOf(obj), obj.GetObjectMeta().ResourceVersion
			}
			c.h.Emit(ret)
		}
		done(obj, err)
	})
}
