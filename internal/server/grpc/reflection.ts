import { loadFileDescriptorSetFromBuffer } from '@grpc/proto-loader';
import type { Server, ServerDuplexStream, ServiceDefinition } from '@grpc/grpc-js';
// The index and answers of @grpc/reflection, without its addToServer, which reads its own
// .proto files from beside the package — absent from the single executable.
import { ReflectionV1Implementation } from '@grpc/reflection/build/src/implementations/reflection-v1';
import protobuf from 'protobufjs';
import reflectionV1 from '../../../proto/grpc/reflection/v1/reflection.proto';
import { descriptorSet } from './protos';

/** @grpc/reflection's own message options (its answers are built for them). */
const AS_OBJECT: protobuf.IConversionOptions = { longs: String, enums: String, bytes: Array, defaults: true, oneofs: true };

function reflectionService(text: string, pkg: string): ServiceDefinition {
  const root = protobuf.parse(text, { keepCase: false }).root;
  root.resolveAll();
  const request = root.lookupType(`${pkg}.ServerReflectionRequest`);
  const response = root.lookupType(`${pkg}.ServerReflectionResponse`);
  return {
    ServerReflectionInfo: {
      path: `/${pkg}.ServerReflection/ServerReflectionInfo`,
      requestStream: true,
      responseStream: true,
      requestSerialize: (value: object) => Buffer.from(request.encode(request.fromObject(value)).finish()),
      requestDeserialize: (bytes: Buffer) => request.toObject(request.decode(bytes), AS_OBJECT),
      responseSerialize: (value: object) => Buffer.from(response.encode(response.fromObject(value)).finish()),
      responseDeserialize: (bytes: Buffer) => response.toObject(response.decode(bytes), AS_OBJECT),
    },
  };
}

/** gRPC server reflection (v1 and v1alpha) over every service of `root`, so `grpcurl list` and `describe` work. */
export function addReflection(server: Server, root: protobuf.Root): void {
  const index = new ReflectionV1Implementation(loadFileDescriptorSetFromBuffer(Buffer.from(descriptorSet(root))));
  // v1alpha, which older tools still ask for, is v1 under another package name.
  const v1alpha = reflectionV1.replace('package grpc.reflection.v1;', 'package grpc.reflection.v1alpha;');
  for (const [text, pkg] of [
    [reflectionV1, 'grpc.reflection.v1'],
    [v1alpha, 'grpc.reflection.v1alpha'],
  ] as const) {
    server.addService(reflectionService(text, pkg), {
      ServerReflectionInfo(stream: ServerDuplexStream<any, unknown>) {
        stream.on('end', () => stream.end());
        stream.on('data', (message) => stream.write(index.handleServerReflectionRequest(message)));
      },
    });
  }
}
