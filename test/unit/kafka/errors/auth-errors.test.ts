// SASL failures as translateKafkajsError passes them on become one KafkaAuthenticationError naming the
// broker, the mechanism and the user, with what to check; anything else is left alone.
import { describe, expect, it } from 'vitest';
import { authenticationFailure, KafkaAuthenticationError } from '../../../../src/kafka/errors/auth-errors.js';
import { translateKafkajsError } from '../../../../src/kafka/kafkajs/internals.js';

function kafkajsSasl(message: string): Error {
  return Object.assign(new Error(message), { name: 'KafkaJSSASLAuthenticationError' });
}

describe('authenticationFailure', () => {
  it('invalid credentials: the user, the mechanism, the broker’s reason and what to check', () => {
    const err = translateKafkajsError(
      'b:9094',
      kafkajsSasl(
        'SASL SCRAM SHA512 authentication failed: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
      ),
      'SCRAM-SHA-512 user "alice"',
    );
    const refused = authenticationFailure(err, 'b:9094');
    expect(refused).toBeInstanceOf(KafkaAuthenticationError);
    expect(refused!.code).toBe('SHARESINK_KAFKA_SASL');
    expect(refused!.username).toBe('alice');
    expect(refused!.message).toBe(
      'authentication failed at b:9094: the broker refused SCRAM-SHA-512 user "alice" (invalid credentials). Check the user name and password in sasl.jaas.config, and that the cluster has this user for SCRAM-SHA-512 (sasl.mechanism)',
    );
  });

  it('a mechanism the listener does not enable', () => {
    const err = translateKafkajsError(
      'b:9094',
      kafkajsSasl('SASL SCRAM-SHA-256 mechanism is not supported by the server'),
      'SCRAM-SHA-256 user "alice"',
    );
    expect(authenticationFailure(err, 'b:9094')!.message).toBe(
      'authentication failed at b:9094: the broker refused SCRAM-SHA-256 user "alice" (this listener does not enable SASL SCRAM-SHA-256). Set sasl.mechanism to one this listener enables, or point bootstrap.servers at the listener meant for SCRAM-SHA-256',
    );
  });

  it('leaves other errors alone', () => {
    expect(authenticationFailure(new Error('x'), 'b:1')).toBeUndefined();
    expect(
      authenticationFailure(
        translateKafkajsError(
          'b:1',
          Object.assign(new Error('Connection error: ECONNREFUSED'), { name: 'KafkaJSConnectionError' }),
        ),
        'b:1',
      ),
    ).toBeUndefined();
  });
});
