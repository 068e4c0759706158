// Every message we encode or decode, checked against the schema-driven generic codec (codec-generic.ts,
// interpreting the Kafka 4.4.0 message JSON transcribed in codec-schemas.ts), in every implemented version,
// with random values, with and without unknown tagged fields. Plus: truncated or mutated responses only
// ever throw KafkaProtocolError.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { KafkaProtocolError } from '../../src/kafka/errors/kafka-errors.js';
import type { ApiDefinition } from '../../src/kafka/protocol/api.js';
import { Reader } from '../../src/kafka/protocol/reader.js';
import { Writer } from '../../src/kafka/protocol/writer.js';
import * as M from '../../src/kafka/protocol/index.js';
import {
  genericDecode,
  genericEncode,
  messageArb,
  withVersionDefaults,
  type MessageSchema,
} from './codec-generic.js';
import * as S from './codec-schemas.js';
import * as G from './codec-schemas-group.js';

interface Case {
  api: ApiDefinition<unknown, unknown>;
  request: MessageSchema;
  response: MessageSchema;
}

const CASES: Case[] = [
  {
    api: M.ApiVersions as ApiDefinition<unknown, unknown>,
    request: S.ApiVersionsRequest,
    response: S.ApiVersionsResponse,
  },
  {
    api: M.Metadata as ApiDefinition<unknown, unknown>,
    request: S.MetadataRequest,
    response: S.MetadataResponse,
  },
  {
    api: M.FindCoordinator as ApiDefinition<unknown, unknown>,
    request: S.FindCoordinatorRequest,
    response: S.FindCoordinatorResponse,
  },
  {
    api: M.ShareGroupHeartbeat as ApiDefinition<unknown, unknown>,
    request: S.ShareGroupHeartbeatRequest,
    response: S.ShareGroupHeartbeatResponse,
  },
  {
    api: M.ShareGroupDescribe as ApiDefinition<unknown, unknown>,
    request: S.ShareGroupDescribeRequest,
    response: S.ShareGroupDescribeResponse,
  },
  {
    api: M.ShareFetch as ApiDefinition<unknown, unknown>,
    request: S.ShareFetchRequest,
    response: S.ShareFetchResponse,
  },
  {
    api: M.ShareAcknowledge as ApiDefinition<unknown, unknown>,
    request: S.ShareAcknowledgeRequest,
    response: S.ShareAcknowledgeResponse,
  },
  {
    api: M.IncrementalAlterConfigs as ApiDefinition<unknown, unknown>,
    request: S.IncrementalAlterConfigsRequest,
    response: S.IncrementalAlterConfigsResponse,
  },
  {
    api: M.DescribeConfigs as ApiDefinition<unknown, unknown>,
    request: S.DescribeConfigsRequest,
    response: S.DescribeConfigsResponse,
  },
  {
    api: M.JoinGroup as ApiDefinition<unknown, unknown>,
    request: G.JoinGroupRequest,
    response: G.JoinGroupResponse,
  },
  {
    api: M.SyncGroup as ApiDefinition<unknown, unknown>,
    request: G.SyncGroupRequest,
    response: G.SyncGroupResponse,
  },
  {
    api: M.Heartbeat as ApiDefinition<unknown, unknown>,
    request: G.HeartbeatRequest,
    response: G.HeartbeatResponse,
  },
  {
    api: M.LeaveGroup as ApiDefinition<unknown, unknown>,
    request: G.LeaveGroupRequest,
    response: G.LeaveGroupResponse,
  },
  {
    api: M.CreateTopics as ApiDefinition<unknown, unknown>,
    request: G.CreateTopicsRequest,
    response: G.CreateTopicsResponse,
  },
];

function encodeRequest(api: ApiDefinition<unknown, unknown>, version: number, req: unknown): Buffer {
  const w = new Writer();
  api.encodeRequest(w, req, version);
  return w.finish();
}

function decodeResponse(api: ApiDefinition<unknown, unknown>, version: number, body: Buffer): unknown {
  return api.decodeResponse(new Reader(body), version);
}

/** ApiVersions treats error 35 as "the body is v0": keep it out of the generic round trip (tested in units). */
function responseArb(c: Case, version: number): fc.Arbitrary<Record<string, unknown>> {
  const arb = messageArb(c.response, version);
  return c.api.name === 'ApiVersions' && version > 0 ? arb.filter((o) => o.errorCode !== 35) : arb;
}

for (const c of CASES) {
  const range: [number, number] = [c.api.minVersion, c.api.maxVersion];
  for (let v = c.api.minVersion; v <= c.api.maxVersion; v++) {
    describe(`${c.api.name} v${v}`, () => {
      test.prop([messageArb(c.request, v)])('request: encode → generic decode is the identity', (req) => {
        expect(genericDecode(c.request, v, encodeRequest(c.api, v, req))).toEqual(req);
      });

      test.prop([responseArb(c, v), fc.boolean()])(
        'response: generic encode → decode is the identity (unknown tags skipped)',
        (res, extraTags) => {
          const body = genericEncode(c.response, v, res, { extraTags, range });
          expect(decodeResponse(c.api, v, body)).toEqual(withVersionDefaults(c.response, v, range, res));
        },
      );

      test.prop([responseArb(c, v), fc.boolean(), fc.nat()])(
        'response: every strict prefix fails with KafkaProtocolError',
        (res, extraTags, cut) => {
          const body = genericEncode(c.response, v, res, { extraTags, range });
          const prefix = body.subarray(0, cut % body.length);
          expect(() => decodeResponse(c.api, v, prefix)).toThrow(KafkaProtocolError);
        },
      );

      test.prop([
        responseArb(c, v),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
      ])('response: mutated bytes decode or fail with KafkaProtocolError, nothing else', (res, mutations) => {
        const body = Buffer.from(genericEncode(c.response, v, res, { range }));
        for (const [at, byte] of mutations) body[at % body.length] = byte;
        try {
          decodeResponse(c.api, v, body);
        } catch (err) {
          expect(err).toBeInstanceOf(KafkaProtocolError);
        }
      });

      test.prop([fc.uint8Array({ maxLength: 200 })])(
        'response: random bytes fail only with KafkaProtocolError',
        (bytes) => {
          try {
            decodeResponse(c.api, v, Buffer.from(bytes));
          } catch (err) {
            expect(err).toBeInstanceOf(KafkaProtocolError);
          }
        },
      );
    });
  }
}
