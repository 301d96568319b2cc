import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fromServer, newSection, toInput, updateSection, updateStep } from '../../src/app/areas/author/model';

// The editor's document keeps a version's required skills and a step sign-off's skills. Before, the
// editor's copy had neither, so an author's autosave of a draft made through the API dropped them silently.

const model = suite("the author's document model: required skills");

const SERVER = {
  qualifications: [{ skill: 'Welding', level: 2 }],
  sections: [
    {
      sectionId: 'main',
      title: 'Main',
      when: null,
      steps: [
        {
          stepId: 'weld',
          title: 'Weld',
          body: '',
          media: [],
          model: null,
          when: null,
          signoff: { performer: true, verifier: null, skills: [{ skill: 'Welding', level: 3 }] },
          fields: [],
        },
      ],
    },
  ],
};

model('read from the server and saved back: the version requirements and the sign-off skills survive', () => {
  const input = toInput(fromServer(SERVER)) as any;
  assert.equal(input.qualifications, [{ skill: 'Welding', level: 2 }]);
  assert.equal(input.sections[0].steps[0].signoff, { performer: true, verifier: null, skills: [{ skill: 'Welding', level: 3 }] });
});

model('editing sections and steps keeps the requirements; a document without them has none', () => {
  const doc = fromServer(SERVER);
  const renamed = updateSection(doc, 0, (s) => ({ ...s, title: 'Renamed' }));
  assert.equal(renamed.qualifications, [{ skill: 'Welding', level: 2 }]);
  const stepped = updateStep(doc, { section: 0, step: 0 }, (s) => ({ ...s, title: 'Weld the flange' }));
  assert.equal(stepped.qualifications, [{ skill: 'Welding', level: 2 }]);
  const bare = fromServer({ sections: [{ ...newSection('S', 'Step'), when: null }] });
  assert.equal((toInput(bare) as any).qualifications, []);
});

model('a sign-off nobody signs is not sent, so neither are its skills (the server would refuse them)', () => {
  const doc = updateStep(fromServer(SERVER), { section: 0, step: 0 }, (s) => ({
    ...s,
    signoff: { performer: false, verifier: null, skills: [{ skill: 'Welding', level: 3 }] },
  }));
  assert.is((toInput(doc) as any).sections[0].steps[0].signoff, null);
});

model.run();
