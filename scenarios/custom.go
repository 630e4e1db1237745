package scenarios

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
)

// SetCustomSpecStep, named name, sets the spec of object, a custom object
// of kind def in namespace, to spec at at, as a user edits a custom
// resource: a get, then an update of the copy read, with spec set. Unlike
// UpdateStep it does not retry a conflict: a 409 (a controller wrote the
// object in between) fails the step, which the script retries, so that a
// test of a user's controller sees every conflict its writes cause.
func SetCustomSpecStep(at time.Duration, name string, def model.CustomResourceDefinition, namespace, object string, spec any) apiload.Step {
	return apiload.Step{At: at, Name: name, Do: func(c *client.Client, done func(error)) {
		rc := c.CustomResources(def, namespace)
		rc.Get(object, client.GetOptions{}, func(obj model.Object, err error) {
			if err != nil {
				done(err)
				return
			}
			o := obj.(*model.CustomObject).DeepCopy()
			if err := o.SetSpec(spec); err != nil {
				done(err)
				return
			}
			rc.Update(o, func(_ model.Object, err error) { done(err) })
		})
	}}
}
