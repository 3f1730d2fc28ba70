import { createServer, constants } from 'node:http2';
import { Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import evaluationProto from '../../proto/flipt/evaluation/evaluation.proto';

/**
 * gRPC baselines for the Variant method: each decodes the request message and answers a
 * VariantEvaluationResponse of the same shape and size as Pennon's, doing nothing else.
 * BARE=grpc-js serves it with @grpc/grpc-js (what Pennon's gRPC server is built on); BARE=http2
 * on a raw node:http2 server speaking gRPC's framing — the floor for any gRPC server in Node.
 * Prints the address it listens on as a URL, as bare-server.ts does.
 */
const root = new protobuf.Root();
root.addJSON(protobuf.common.get('google/protobuf/timestamp.proto')!.nested!);
protobuf.parse(evaluationProto, root, { keepCase: false });
root.resolveAll();
const Request = root.lookupType('flipt.evaluation.EvaluationRequest');
const Response = root.lookupType('flipt.evaluation.VariantEvaluationResponse');
const answer = (flagKey: string) => ({
  match: true,
  segmentKeys: ['segment-9'],
  reason: 'MATCH_EVALUATION_REASON',
  variantKey: 'treatment',
  variantAttachment: '{"color":"blue"}',
  requestId: '4d2c8f3e-5b1a-4c7e-9f0d-2a6b8c1e3f57',
  requestDurationMillis: 0.05,
  timestamp: { seconds: 1767225600, nanos: 0 },
  flagKey,
});
const encode = (flagKey: string) => Buffer.from(Response.encode(Response.fromObject(answer(flagKey))).finish());
const decode = (bytes: Buffer) => Request.toObject(Request.decode(bytes)) as { flagKey?: string };

if (process.env.BARE === 'http2') {
  const server = createServer();
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      if (headers[constants.HTTP2_HEADER_PATH] !== '/flipt.evaluation.EvaluationService/Variant') {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' }, { endStream: true });
        return;
      }
      const body = Buffer.concat(chunks);
      const message = encode(decode(body.subarray(5)).flagKey ?? '');
      const frame = Buffer.alloc(5 + message.length);
      frame.writeUInt32BE(message.length, 1);
      message.copy(frame, 5);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(frame);
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as { port: number }).port}`));
} else {
  const server = new Server();
  server.addService(
    {
      Variant: {
        path: '/flipt.evaluation.EvaluationService/Variant',
        requestStream: false,
        responseStream: false,
        requestSerialize: (v: Buffer) => v,
        requestDeserialize: decode,
        responseSerialize: (v: Buffer) => v,
        responseDeserialize: (v: Buffer) => v,
      },
    },
    { Variant: (call: ServerUnaryCall<{ flagKey?: string }, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, encode(call.request.flagKey ?? '')) },
  );
  server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    console.log(`http://127.0.0.1:${port}`);
  });
}
