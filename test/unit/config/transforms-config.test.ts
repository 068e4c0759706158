import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileConnectorConfig, validateConnectorConfig } from '../../../src/config/index.js';
import { BUILTIN_PREDICATE_LIST, BUILTIN_TRANSFORM_LIST } from '../../../src/connect/transforms/builtins.js';
import { base, problemsOf, worker } from './config-helpers.js';

const compile = (props: Record<string, string>) =>
  compileConnectorConfig({ ...base, ...props }, worker, { cwd: '/work' });

describe('transforms and predicates in a connector config', () => {
  it('the defect: MaskField without fields is no longer silently ignored', () => {
    expect(
      problemsOf(() =>
        compile({
          transforms: 'mask',
          'transforms.mask.type': 'org.apache.kafka.connect.transforms.MaskField$Value',
        }),
      ),
    ).toEqual([
      'transforms.mask.fields: is required and has no value; accepted: a comma-separated list, a non-empty comma-separated list of field names',
    ]);
  });

  it('compiles a chain with Java class names, short names, predicates, negate and a module', () => {
    const config = compile({
      transforms: 'drop,mask,custom',
      'transforms.drop.type': 'org.apache.kafka.connect.transforms.Filter',
      'transforms.drop.predicate': 'tomb',
      'transforms.drop.negate': 'false',
      'transforms.mask.type': 'MaskField$Value',
      'transforms.mask.fields': 'ssn,card',
      'transforms.mask.predicate': 'isOrders',
      'transforms.mask.negate': 'TRUE',
      'transforms.custom.type': './my-transform.js',
      'transforms.custom.anything': 'goes',
      predicates: 'tomb,isOrders',
      'predicates.tomb.type': 'org.apache.kafka.connect.transforms.predicates.RecordIsTombstone',
      'predicates.isOrders.type': 'TopicNameMatches',
      'predicates.isOrders.pattern': 'orders.*',
    });
    expect(config.transforms).toEqual({
      transforms: [
        {
          alias: 'drop',
          type: 'org.apache.kafka.connect.transforms.Filter',
          builtin: 'Filter',
          module: undefined,
          props: {},
          predicate: 'tomb',
          negate: false,
        },
        {
          alias: 'mask',
          type: 'MaskField$Value',
          builtin: 'MaskField$Value',
          module: undefined,
          props: { fields: 'ssn,card' },
          predicate: 'isOrders',
          negate: true,
        },
        {
          alias: 'custom',
          type: './my-transform.js',
          builtin: undefined,
          module: pathToFileURL('/work/my-transform.js').href,
          props: { anything: 'goes' },
          predicate: undefined,
          negate: false,
        },
      ],
      predicates: [
        {
          alias: 'tomb',
          type: 'org.apache.kafka.connect.transforms.predicates.RecordIsTombstone',
          builtin: 'RecordIsTombstone',
          module: undefined,
          props: {},
        },
        {
          alias: 'isOrders',
          type: 'TopicNameMatches',
          builtin: 'TopicNameMatches',
          module: undefined,
          props: { pattern: 'orders.*' },
        },
      ],
    });
  });

  it('lists every problem at once, each with key, value and fix', () => {
    const problems = problemsOf(() =>
      compile({
        transforms: 'a,b,c,d,e,a',
        'transforms.a.type': 'org.apache.kafka.connect.transforms.InsertFeild$Value',
        'transforms.b.type': 'InsertField',
        'transforms.c.type': 'Cast$Value',
        'transforms.c.spec': 'x:decimal',
        'transforms.d.type': 'TimestampConverter$Value',
        'transforms.d.target.type': 'string',
        'transforms.d.predicate': 'isTomb',
        'transforms.e.type': 'RegexRouter',
        'transforms.e.regex': '(',
        'transforms.e.replacement': 'x',
        'transforms.e.negate': 'maybe',
        'transforms.e.predicate': 'istomb',
        predicates: 'istomb,p2',
        'predicates.istomb.type': 'RecordIsTombstone',
        'predicates.p2.type': 'com.example.Whatever',
      }),
    );
    expect(problems).toEqual([
      'transforms: "a,b,c,d,e,a" lists a twice; accepted: a comma-separated list of distinct aliases',
      expect.stringMatching(
        /^predicates\.p2\.type: "com\.example\.Whatever" is a Java class, and sharesink runs no Java: use Kafka's built-in predicates \(docs\/transforms\.md\) or a Node module whose default export is a Predicate class \(docs\/transforms\.md#custom-transforms\); accepted: one of TopicNameMatches, HasHeaderKey, RecordIsTombstone/,
      ),
      expect.stringMatching(
        /^transforms\.a\.type: "org\.apache\.kafka\.connect\.transforms\.InsertFeild\$Value" is not a transform sharesink has \(did you mean InsertField\$Value\?\); accepted: one of InsertField\$Key/,
      ),
      expect.stringMatching(
        /^transforms\.b\.type: "InsertField" is not a transform sharesink has \(Connect has InsertField\$Key and InsertField\$Value: say which side it works on\)/,
      ),
      'transforms.c.spec: has invalid entries "x:decimal"; accepted: field:type pairs or a single type, types int8, int16, int32, int64, float32, float64, boolean, string',
      'transforms.d.predicate: "isTomb" is not defined in predicates (did you mean istomb?); accepted: one of istomb, p2',
      'transforms.d.format: is required with target.type=string; accepted: a java.text.SimpleDateFormat pattern such as yyyy-MM-dd',
      'transforms.e.negate: "maybe" is not true or false; accepted: true or false',
      expect.stringMatching(/^transforms\.e\.regex: "\(" is not a valid regular expression/),
    ]);
  });

  it('requires a type, and refuses transforms sharesink does not have', () => {
    expect(problemsOf(() => compile({ transforms: 'x' }))).toEqual([
      expect.stringMatching(
        /^transforms\.x\.type: is required and has no value; accepted: one of InsertField\$Key/,
      ),
    ]);
    expect(
      problemsOf(() =>
        compile({ transforms: 'x', 'transforms.x.type': 'io.confluent.connect.transforms.Drop$Value' }),
      ),
    ).toEqual([
      expect.stringMatching(
        /^transforms\.x\.type: "io\.confluent\.connect\.transforms\.Drop\$Value" is a Java class, and sharesink runs no Java: transforms from outside Apache Kafka are not built in; write a transform module that does the same \(docs\/transforms\.md#custom-transforms\); accepted: one of InsertField\$Key/,
      ),
    ]);
  });

  it('refuses negate without a predicate, as Connect does', () => {
    expect(
      problemsOf(() =>
        compile({ transforms: 'f', 'transforms.f.type': 'Filter', 'transforms.f.negate': 'false' }),
      ),
    ).toEqual([
      'transforms.f.negate: "false" is set but transforms.f.predicate is not, so there is no predicate to negate; accepted: negate together with transforms.f.predicate',
    ]);
  });

  it('warns about settings nothing reads: misspelt settings and aliases, unused predicates', () => {
    const check = validateConnectorConfig(
      {
        ...base,
        transforms: 'ins',
        'transforms.ins.type': 'InsertField$Value',
        'transforms.ins.topic.feild': 't',
        'transforms.isn.offset.field': 'o',
        predicates: 'unused',
        'predicates.unused.type': 'RecordIsTombstone',
      },
      worker,
    );
    expect(check.problems).toEqual([]);
    expect(check.warnings).toEqual([
      'transforms.ins.topic.feild: not a setting of InsertField$Value; ignored (did you mean topic.field?)',
      'predicates: unused is defined but no transform refers to it; ignored',
      'transforms.isn.offset.field: isn is not listed in transforms; ignored (did you mean ins?)',
    ]);
    expect(check.config!.transforms.predicates).toEqual([]);
  });

  it('accepts every built-in by both of its names with its settings', () => {
    const settings: Record<string, Record<string, string>> = {
      MaskField: { fields: 'a' },
      ValueToKey: { fields: 'a' },
      ExtractField: { field: 'a' },
      HoistField: { field: 'a' },
      Cast: { spec: 'a:int8' },
      TimestampConverter: { 'target.type': 'unix' },
      RegexRouter: { regex: 'a', replacement: 'b' },
      SetSchemaMetadata: { 'schema.name': 'x' },
      InsertHeader: { header: 'h', 'value.literal': 'v' },
      DropHeaders: { headers: 'h' },
      HeaderFrom: { fields: 'a', headers: 'h', operation: 'copy' },
    };
    for (const t of BUILTIN_TRANSFORM_LIST) {
      for (const type of [t.name, t.className]) {
        const own = settings[t.name.replace(/\$.*/, '')] ?? {};
        const props = Object.fromEntries(Object.entries(own).map(([k, v]) => [`transforms.t.${k}`, v]));
        const config = compile({ transforms: 't', 'transforms.t.type': type, ...props });
        expect(config.transforms.transforms[0]!.builtin).toBe(t.name);
      }
    }
    for (const p of BUILTIN_PREDICATE_LIST) {
      const props: Record<string, string> =
        p.name === 'TopicNameMatches'
          ? { 'predicates.p.pattern': 'x' }
          : p.name === 'HasHeaderKey'
            ? { 'predicates.p.name': 'h' }
            : {};
      const config = compile({
        transforms: 'f',
        'transforms.f.type': 'Filter',
        'transforms.f.predicate': 'p',
        predicates: 'p',
        'predicates.p.type': p.className,
        ...props,
      });
      expect(config.transforms.predicates[0]!.builtin).toBe(p.name);
    }
  });
});
