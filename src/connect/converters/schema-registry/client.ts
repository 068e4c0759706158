/**
 * A read-only client of the Confluent Schema Registry REST API (what Apicurio's /apis/ccompat/v7
 * serves too): the schema of an id, and the schemas it references. Several URLs fail over in order,
 * starting from the last one that answered. A registry that cannot be reached, or answers 5xx, is a
 * RegistryUnreachableError (retriable); a 404 for an id is an answer (the id is not known there).
 */
import http from 'node:http';
import https from 'node:https';
import { RetriableError } from '../../errors.js';
import type { RegistrySettings } from './settings.js';

export interface SchemaReference {
  readonly name: string;
  readonly subject: string;
  readonly version: number;
}

export interface RegisteredSchema {
  /** AVRO (the registry's default when absent), PROTOBUF or JSON. */
  readonly schemaType: string;
  readonly schema: string;
  readonly references: readonly SchemaReference[];
}

/** The registry could not be asked (connection refused, timeout, 5xx, 401/403): the batch is retried. */
export class RegistryUnreachableError extends RetriableError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options, 'SHARESINK_REGISTRY_UNREACHABLE');
  }
}

type Answer = { status: 200; body: unknown } | { status: 404; body: unknown };

export class RegistryClient {
  readonly #settings: RegistrySettings;
  readonly #agents: { http: http.Agent; https: https.Agent };
  /** Index in `urls` of the registry that answered last: asked first next time. */
  #current = 0;

  constructor(settings: RegistrySettings) {
    this.#settings = settings;
    const tls = settings.tls;
    this.#agents = {
      http: new http.Agent({ keepAlive: true, maxSockets: 8 }),
      https: new https.Agent({
        keepAlive: true,
        maxSockets: 8,
        ca: tls?.ca as string[] | undefined,
        cert: tls?.cert,
        key: tls?.key?.value(),
        passphrase: tls?.keyPassphrase?.value() ?? tls?.pfxPassphrase?.value(),
        pfx: tls?.pfx,
        ...(tls?.verifyHostname === false ? { checkServerIdentity: () => undefined } : {}),
      }),
    };
  }

  /** The URLs as a person wrote them, without credentials, for messages. */
  describe(): string {
    return this.#settings.urls.map((u) => u.href.replace(/\/$/, '')).join(', ');
  }

  /** `GET /schemas/ids/{id}`: the schema, or undefined when the registry does not know the id. */
  async schemaById(id: number): Promise<RegisteredSchema | undefined> {
    const answer = await this.#get(`schemas/ids/${id}`);
    return answer.status === 404 ? undefined : parseSchema(answer.body, `schema id ${id}`);
  }

  /** `GET /subjects/{subject}/versions/{version}`: a referenced schema. */
  async schemaByVersion(subject: string, version: number): Promise<RegisteredSchema | undefined> {
    const answer = await this.#get(`subjects/${encodeURIComponent(subject)}/versions/${version}`);
    return answer.status === 404 ? undefined : parseSchema(answer.body, `${subject} version ${version}`);
  }

  close(): void {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  async #get(path: string): Promise<Answer> {
    const urls = this.#settings.urls;
    const failures: string[] = [];
    for (let attempt = 0; attempt < urls.length; attempt++) {
      const index = (this.#current + attempt) % urls.length;
      const base = urls[index]!;
      const url = new URL(path, base.href.endsWith('/') ? base.href : `${base.href}/`);
      try {
        const answer = await this.#request(url);
        this.#current = index;
        return answer;
      } catch (error) {
        failures.push(`${url.origin}${url.pathname}: ${(error as Error).message}`);
      }
    }
    throw new RegistryUnreachableError(
      `the schema registry cannot be reached (${failures.join('; ')}); the records wait and are retried. Check schema.registry.url and that the registry runs`,
    );
  }

  #request(url: URL): Promise<Answer> {
    const { connectTimeoutMs, readTimeoutMs, authorization } = this.#settings;
    const secure = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(url, {
        method: 'GET',
        agent: secure ? this.#agents.https : this.#agents.http,
        headers: {
          accept: 'application/vnd.schemaregistry.v1+json, application/json',
          ...(authorization === undefined ? {} : { authorization }),
        },
      });
      const connectTimer = setTimeout(
        () => req.destroy(new Error(`no connection within ${connectTimeoutMs} ms`)),
        connectTimeoutMs,
      );
      req.on('socket', (socket) => {
        if (!socket.connecting) clearTimeout(connectTimer);
        else socket.once('connect', () => clearTimeout(connectTimer));
      });
      req.setTimeout(readTimeoutMs, () => req.destroy(new Error(`no answer within ${readTimeoutMs} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(connectTimer);
        reject(
          new Error(
            error.code
              ? `${error.code} ${error.message}`.replace(`${error.code} ${error.code}`, error.code)
              : error.message,
          ),
        );
      });
      req.on('response', (res) => {
        clearTimeout(connectTimer);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // kept as text for the message
          }
          const status = res.statusCode ?? 0;
          if (status === 200 || status === 404) resolve({ status, body });
          else if (status === 401 || status === 403)
            reject(
              new Error(`HTTP ${status} (${brief(body)}): check basic.auth.user.info / bearer.auth.token`),
            );
          else reject(new Error(`HTTP ${status} (${brief(body)})`));
        });
      });
      req.end();
    });
  }
}

function brief(body: unknown): string {
  const message = (body as { message?: unknown } | undefined)?.message;
  const text = typeof message === 'string' ? message : typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function parseSchema(body: unknown, what: string): RegisteredSchema {
  const b = body as { schema?: unknown; schemaType?: unknown; references?: unknown };
  if (typeof b?.schema !== 'string')
    throw new RegistryUnreachableError(
      `the schema registry answered for ${what} without a schema: ${brief(body)}`,
    );
  const references = Array.isArray(b.references)
    ? (b.references as SchemaReference[]).filter(
        (r) => typeof r?.name === 'string' && typeof r.subject === 'string',
      )
    : [];
  return {
    schemaType: typeof b.schemaType === 'string' ? b.schemaType : 'AVRO',
    schema: b.schema,
    references,
  };
}
