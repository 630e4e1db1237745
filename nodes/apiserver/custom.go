package apiserver

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// Custom kinds (model.CustomResourceDefinition, served when the replica's
// Config.Resources registers them) take the same paths as built-in kinds:
// the same storage, watch cache, resourceVersion, 409 and 410 rules. What
// differs is the resource's strategy, k8s.io/apiextensions-apiserver
// pkg/registry/customresource/strategy.go and status_strategy.go, which
// the helpers here follow.

// customBody checks a custom object's body: it must be a
// *model.CustomObject of the resource's apiVersion (an empty one is taken
// as the resource's), and its spec and status are put in canonical form, so
// that comparing them is comparing bytes. A body of the wrong version or
// with a value that is not JSON is 400, as the real decoder answers.
func customBody(obj model.Object, res resourceInfo) *apiwire.Status {
	if res.Custom == nil {
		return nil
	}
	co, ok := obj.(*model.CustomObject)
	if !ok {
		return badRequest("the body of the request for %s must be a custom object", qualified(res))
	}
	switch co.APIVersion {
	case "":
		co.APIVersion = res.APIVersion()
	case res.APIVersion():
	default:
		return badRequest("the API version in the data (%s) does not match the expected API version (%s)", co.APIVersion, res.APIVersion())
	}
	if err := co.Canonicalize(); err != nil {
		return badRequest("the body of the request could not be decoded: %v", err)
	}
	return nil
}

// hasStatusSubresource reports whether res serves update-status: every
// built-in kind with a Status field does; a custom kind when its
// definition turns the subresource on.
func hasStatusSubresource(res resourceInfo, obj model.Object) bool {
	if res.Custom != nil {
		return res.Custom.StatusSubresource
	}
	return statusField(obj).IsValid()
}

// mainEndpointKeepsStatus reports whether an update or patch of the object
// keeps the stored status: for every built-in kind, and for a custom kind
// with the status subresource (customResourceStrategy.PrepareForUpdate:
// "If the /status subresource endpoint is installed, update is not
// allowed to set status"). Without it, status is an ordinary field.
func mainEndpointKeepsStatus(res resourceInfo) bool {
	return res.Custom == nil || res.Custom.StatusSubresource
}

// prepareCustomCreate is customResourceStrategy.PrepareForCreate: with the
// status subresource, create cannot set status. (Generation 1 is set for
// every kind by prepareForCreate.)
func prepareCustomCreate(obj model.Object, res resourceInfo) {
	if res.Custom != nil && res.Custom.StatusSubresource {
		obj.(*model.CustomObject).Status = nil
	}
}

// customContentChanged is the generation test of
// customResourceStrategy.PrepareForUpdate: any change outside metadata
// bumps generation. Through the main endpoint with the status subresource
// the status was reset to the stored one first, so only spec counts;
// statusStrategy.PrepareForUpdate (update-status) never bumps it. Spec and
// status are canonical, so byte equality is semantic equality.
func customContentChanged(a, b *model.CustomObject) bool {
	return string(a.Spec) != string(b.Spec) || string(a.Status) != string(b.Status)
}

// admitCustom validates a custom object on create (old nil) or update:
// model.ValidateCustomObject, answered 422 with the kind qualified by its
// group, as apierrors.NewInvalid prints a GroupKind (`Widget.example.com
// "w" is invalid: spec.size: Invalid value: ...`).
func admitCustom(obj, old model.Object, res resourceInfo) *apiwire.Status {
	var oldCO *model.CustomObject
	if old != nil {
		oldCO = old.(*model.CustomObject)
	}
	if errs := model.ValidateCustomObject(*res.Custom, obj.(*model.CustomObject), oldCO); len(errs) > 0 {
		return errStatus(422, apiwire.ReasonInvalid, "%s.%s %q is invalid: %s", res.Kind, res.Group, obj.GetObjectMeta().Name, errs.Error())
	}
	return nil
}
