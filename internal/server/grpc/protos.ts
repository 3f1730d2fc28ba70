import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor';
import flagdV1 from '../../../proto/flagd/evaluation/v1/evaluation.proto';
import flagdV2 from '../../../proto/flagd/evaluation/v2/evaluation.proto';
import fliptAuth from '../../../proto/flipt/auth/auth.proto';
import fliptEvaluation from '../../../proto/flipt/evaluation/evaluation.proto';
import flipt from '../../../proto/flipt/flipt.proto';
import fliptMeta from '../../../proto/flipt/meta/meta.proto';
import fliptOfrep from '../../../proto/flipt/ofrep/ofrep.proto';
import httpBody from '../../../proto/google/api/httpbody.proto';
import health from '../../../proto/grpc/health/v1/health.proto';

/**
 * The gRPC API's wire contract: the project's .proto files (proto/), bundled as text and parsed
 * once. Google's well-known types (timestamp, struct, empty, any) are protobufjs's own copies.
 */
const FILES: Record<string, string> = {
  'flipt/flipt.proto': flipt,
  'flipt/evaluation/evaluation.proto': fliptEvaluation,
  'flipt/auth/auth.proto': fliptAuth,
  'flipt/ofrep/ofrep.proto': fliptOfrep,
  'flipt/meta/meta.proto': fliptMeta,
  'google/api/httpbody.proto': httpBody,
  // flagd's evaluation protocol, both generations (the OpenFeature flagd providers' RPC mode).
  'flagd/evaluation/v1/evaluation.proto': flagdV1,
  'flagd/evaluation/v2/evaluation.proto': flagdV2,
  // Served by grpc-health.ts; here so that reflection lists and describes it too.
  'grpc/health/v1/health.proto': health,
};

let loading: Promise<protobuf.Root> | undefined;

/** Every service and message of the API, resolved (field names in camelCase, as protojson's). */
export function protoRoot(): Promise<protobuf.Root> {
  return (loading ??= (async () => {
    const root = new protobuf.Root();
    // Files are named from the proto/ folder, as their imports name them.
    root.resolvePath = (_origin, target) => target;
    root.fetch = (name, callback) => {
      const text = FILES[name];
      // protobufjs's callback is typed as always erring; null is what it expects on success.
      if (text === undefined) callback(new Error(`${name} is not among the bundled .proto files`));
      else (callback as (error: Error | null, source: string) => void)(null, text);
    };
    await root.load(Object.keys(FILES), { keepCase: false });
    root.resolveAll();
    return root;
  })());
}

/** The files as a FileDescriptorSet, for gRPC server reflection. */
export function descriptorSet(root: protobuf.Root): Uint8Array {
  const set = (root as unknown as { toDescriptor(syntax: string): protobuf.Message }).toDescriptor('proto3');
  return descriptor.FileDescriptorSet.encode(set).finish();
}
