package gc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
)

// TestCollectsSlicesOfDeletedService: the EndpointSlice controller leaves
// a deleted Service's slices to the collector, which deletes them since
// their controller reference names a Service that is gone; another
// Service's slice stays.
func TestCollectsSlicesOfDeletedService(t *testing.T) {
	e := newEnv(t, 1, false, nil)
	svc := func(name string) model.Object {
		return e.mustCreate(&model.Service{ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns},
			Spec: model.ServiceSpec{Selector: map[string]string{"app": name}, Ports: []model.ServicePort{{Port: 80}}}})
	}
	slice := func(name string, owner model.Object) {
		e.mustCreate(&model.EndpointSlice{ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns,
			OwnerReferences: []model.OwnerReference{*model.NewControllerRef(owner, model.KindService)}},
			AddressType: model.AddressTypeIPv4})
	}
	slice("web-abcde", svc("web"))
	slice("api-abcde", svc("api"))
	e.Run(2 * time.Second)
	e.del(model.ResourceServicesName, "web")
	e.Run(5 * time.Second)
	_, err := e.Get(model.ResourceEndpointSlicesName, ns, "web-abcde")
	assert.True(t, client.IsNotFound(err), "the deleted Service's slice is collected: %v", err)
	_, err = e.Get(model.ResourceEndpointSlicesName, ns, "api-abcde")
	require.NoError(t, err)
}
