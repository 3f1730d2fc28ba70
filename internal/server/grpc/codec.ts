import type { MethodDefinition } from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { invalid, isPennonError } from '../../core';
import { parseGoDateTime } from '../../core/goparse';

/**
 * Messages to and from protojson's shape — the shape the HTTP routes read and write — so that
 * an operation has one implementation for both transports. protobufjs already maps names
 * (camelCase), enums (by name) and 64-bit integers (as strings); what it leaves as messages
 * is mapped here as protojson does: Timestamp ⇄ RFC 3339 text, Struct ⇄ a JSON object,
 * Value ⇄ any JSON value, ListValue ⇄ an array.
 */

type Json = Record<string, unknown>;

const WELL_KNOWN = {
  '.google.protobuf.Timestamp': { fromWire: timestampText, toWire: timestampMessage },
  '.google.protobuf.Struct': { fromWire: structObject, toWire: structMessage },
  '.google.protobuf.Value': { fromWire: valueOf, toWire: valueMessage },
  '.google.protobuf.ListValue': { fromWire: listArray, toWire: listMessage },
} as Record<string, { fromWire(message: Json): unknown; toWire(json: unknown): unknown }>;

const TO_OBJECT: protobuf.IConversionOptions = { enums: String, longs: String, bytes: String, defaults: false, arrays: false, objects: false, oneofs: false, json: true };

/** The fields of a type that need mapping (a well-known type, or a message holding one); memoised per type. */
const mappedFields = new WeakMap<protobuf.Type, protobuf.Field[]>();

function fieldsToMap(type: protobuf.Type, visiting = new Set<protobuf.Type>()): protobuf.Field[] {
  const known = mappedFields.get(type);
  if (known) return known;
  visiting.add(type);
  const fields = type.fieldsArray.filter((field) => {
    const inner = field.resolvedType;
    if (!inner || !('fieldsArray' in inner)) return false;
    if (WELL_KNOWN[inner.fullName]) return true;
    // A message type being walked already (a recursive type) is assumed to need mapping.
    return visiting.has(inner) || fieldsToMap(inner, visiting).length > 0;
  });
  visiting.delete(type);
  mappedFields.set(type, fields);
  return fields;
}

function mapValue(type: protobuf.Type, value: unknown, direction: 'fromWire' | 'toWire'): unknown {
  const wellKnown = WELL_KNOWN[type.fullName];
  if (wellKnown) return wellKnown[direction](value as Json);
  return value !== null && typeof value === 'object' ? mapMessage(type, value as Json, direction) : value;
}

function mapMessage(type: protobuf.Type, object: Json, direction: 'fromWire' | 'toWire'): Json {
  const fields = fieldsToMap(type);
  if (fields.length === 0) return object;
  const out: Json = { ...object };
  for (const field of fields) {
    const value = out[field.name];
    if (value === undefined || value === null) continue;
    const inner = field.resolvedType as protobuf.Type;
    if (field.map) {
      const entries = Object.entries(value as Json).map(([k, v]) => [k, mapValue(inner, v, direction)]);
      out[field.name] = Object.fromEntries(entries);
    } else if (field.repeated && Array.isArray(value)) {
      out[field.name] = value.map((v) => mapValue(inner, v, direction));
    } else {
      out[field.name] = mapValue(inner, value, direction);
    }
  }
  return out;
}

/** A message's bytes as the JSON object an HTTP route would have parsed. */
export function decodeMessage(type: protobuf.Type, bytes: Buffer): Json {
  let message: protobuf.Message;
  try {
    message = type.decode(bytes);
  } catch (err) {
    // A RangeError too: a Struct nested thousands of levels deep exhausts the decoder's stack.
    throw invalid(`request message is not a valid ${type.name}: ${(err as Error).message}`);
  }
  return mapMessage(type, type.toObject(message, TO_OBJECT), 'fromWire');
}

const UNDECODABLE = Symbol('pennon.undecodable');

/**
 * What grpc-js is given to deserialize with: it answers INTERNAL for a deserializer that throws,
 * so a message that cannot be read is handed on as its error, for the handler to answer as the
 * InvalidArgument it is (`undecodable`).
 */
function tolerantDecoder(type: protobuf.Type): (bytes: Buffer) => Json {
  return (bytes) => {
    try {
      return decodeMessage(type, bytes);
    } catch (err) {
      // Whatever stopped the reading (a length past the end, nesting past the recursion limit) is the client's mistake.
      return { [UNDECODABLE]: isPennonError(err) ? err : invalid(`request message is not a valid ${type.name}: ${(err as Error).message}`) };
    }
  };
}

/** The error a request message could not be read with, if it could not. */
export function undecodable(request: Json): unknown {
  return (request as { [UNDECODABLE]?: unknown })[UNDECODABLE];
}

/** A JSON answer (protojson's shape) as a message's bytes. */
export function encodeMessage(type: protobuf.Type, json: unknown): Buffer {
  const message = type.fromObject(mapMessage(type, (json ?? {}) as Json, 'toWire'));
  return Buffer.from(type.encode(message).finish());
}

/** A unary or server-streaming method as grpc-js serves (and its clients call) it, carrying JSON objects. */
export function methodDefinition(method: protobuf.Method): MethodDefinition<Json, unknown> {
  const service = method.parent as protobuf.Service;
  const request = method.resolvedRequestType as protobuf.Type;
  const response = method.resolvedResponseType as protobuf.Type;
  return {
    path: `/${service.fullName.slice(1)}/${method.name}`,
    requestStream: false,
    responseStream: method.responseStream === true,
    requestSerialize: (json) => encodeMessage(request, json),
    requestDeserialize: tolerantDecoder(request),
    // An answer already encoded (the namespace snapshot, built in slices; a stream's events) is sent as it is.
    responseSerialize: (json) => (Buffer.isBuffer(json) ? json : encodeMessage(response, json)),
    responseDeserialize: (bytes) => decodeMessage(response, bytes),
  };
}

// ---- the well-known types ----

function timestampText(message: Json): string {
  const seconds = Number(message.seconds ?? 0);
  const nanos = Number(message.nanos ?? 0);
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  if (nanos === 0) return `${base}Z`;
  // protojson: 3, 6 or 9 fractional digits, as few as hold the value.
  const digits = String(nanos).padStart(9, '0');
  const fraction = digits.endsWith('000000') ? digits.slice(0, 3) : digits.endsWith('000') ? digits.slice(0, 6) : digits;
  return `${base}.${fraction}Z`;
}

function timestampMessage(json: unknown): { seconds: number; nanos: number } {
  const parsed = typeof json === 'string' ? parseGoDateTime(json) : null;
  if (!parsed || parsed.dateOnly) throw new Error(`"${String(json)}" is not an RFC 3339 timestamp`);
  return { seconds: parsed.seconds, nanos: parsed.nanos };
}

// Recursive, yet bounded: protobufjs refuses messages nested past 100 levels (protoc's limit),
// about 33 levels of JSON in a Struct, well within a request body's MAX_JSON_DEPTH.
function valueOf(message: Json): unknown {
  if ('nullValue' in message) return null;
  if ('numberValue' in message) return message.numberValue;
  if ('stringValue' in message) return message.stringValue;
  if ('boolValue' in message) return message.boolValue;
  if ('structValue' in message) return structObject(message.structValue as Json);
  if ('listValue' in message) return listArray(message.listValue as Json);
  return null;
}

function structObject(message: Json): Json {
  const fields = (message.fields ?? {}) as Record<string, Json>;
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, valueOf(v)]));
}

function listArray(message: Json): unknown[] {
  return ((message.values ?? []) as Json[]).map(valueOf);
}

function valueMessage(json: unknown): Json {
  if (json === null || json === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof json === 'number') return { numberValue: json };
  if (typeof json === 'string') return { stringValue: json };
  if (typeof json === 'boolean') return { boolValue: json };
  if (Array.isArray(json)) return { listValue: listMessage(json) };
  return { structValue: structMessage(json) };
}

function structMessage(json: unknown): Json {
  return { fields: Object.fromEntries(Object.entries((json ?? {}) as Json).map(([k, v]) => [k, valueMessage(v)])) };
}

function listMessage(json: unknown): Json {
  return { values: (json as unknown[]).map(valueMessage) };
}
