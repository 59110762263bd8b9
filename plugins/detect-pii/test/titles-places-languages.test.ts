import { describeClasses, type FindingClass } from './helpers.js'

/**
 * The classes of 0.6.4, found on the tuning part of the benign prompts: for each, prompts without personal data
 * that 0.6.3 changed (most of them refused under `strict`), and a prompt of the same shape with a person, who is
 * still found.
 */
const CLASSES: FindingClass[] = [
  {
    name: 'quoted titles: after a work or product noun, or a quoted title-case phrase',
    benign: [
      "Explain the message of 'Romeo and Juliet' to a modern audience.",
      "The title of my most popular book is 'Chrono Divergence'.",
      "What is the average weight of patients treated with the drug named 'Drugalin'?",
      "You are the Mad Hatter from 'Alice's Adventures in Wonderland'. Describe your tea party.",
      'Summarise "Harry Potter and the Philosopher\'s Stone" for a child.',
    ],
    person: [
      ["Please email 'The Old Man and the Sea' to Anna Berg tomorrow.", ['PERSON:Anna Berg!']],
      [
        "The title of my most popular book is 'Chrono Divergence', written with Anna Berg.",
        ['PERSON:Anna Berg!'],
      ],
      // A quoted name without a work noun before it, and a quote after a work noun in another clause.
      ["What are the phone numbers of the contestant named 'Tabatha Gehling'?", ['PERSON:Tabatha Gehling']],
      [
        'The crime novel is set in Leeds. The protagonist, "Harvey Talbot", is a detective.',
        ['PERSON:Harvey Talbot!'],
      ],
      // A nickname ("Name the …") and a quoted clause are no titles.
      ["The champion, 'Hank the Hot Dog Hero', won again.", ['PERSON:Hank the Hot']],
      ['Give examples of how "Jeff Bezos, the CEO of Amazon" drives innovation.', ['PERSON:Jeff Bezos!']],
      // A quote after "article" too long for a title: a passage or headline that names its people.
      [
        'Write an article on "Why remote teams fail and what the founder Anna Berg changed in her company" today.',
        ['PERSON:Anna Berg!'],
      ],
    ],
  },
  {
    name: 'a work named by the character it is about: "the Cheshire Cat from Alice in Wonderland"',
    benign: [
      'Imagine you are the Queen of Hearts from Alice in Wonderland. What do you say?',
      'Roleplay as the Cheshire Cat from Alice in Wonderland and give directions.',
    ],
    person: [
      ['I got a letter from Alice in Accounting about the refund.', ['PERSON:Alice!']],
      [
        'The Queen of Hearts met Alice in Wonderland and Anna Berg in Oslo.',
        ['PERSON:Alice!', 'PERSON:Anna Berg!'],
      ],
    ],
  },
  {
    name: 'ideas and things named after a person: formulas, theorems, comets, laws, schemes, diseases',
    benign: [
      'How does Heron’s formula work?',
      "What is Fermat's Last Theorem?",
      "When will Halley's Comet next be visible from Earth?",
      'Some of these schemes look like what we call Ponzi schemes.',
      "Explain Murphy's Law with an example.",
      "What is Schrödinger's equation used for?",
      'What is the Riemann Hypothesis?',
    ],
    person: [
      ["Sarah's law firm sent the invoice.", ['PERSON:Sarah!']],
      ["Mary's disease got worse last week.", ['PERSON:Mary!']],
      ["My father Jacob Miller has Parkinson's disease.", ['PERSON:Jacob Miller!']],
    ],
  },
  {
    name: 'places named after their kind: planets, kingdoms, cities, mountains, lakes, counties',
    benign: [
      'You are an astronaut on a newly discovered planet named Xorbia. As you walk, describe the flora.',
      'Describe the newly-discovered planet Zorba and its life.',
      'As an ambassador from Planet Zogar, describe your customs.',
      'Roleplay as the president of a fictional country called Narnia. How would you improve schools?',
      "The lost city of El'Arisa was hidden in a jungle.",
      'Can you provide coordinates for Mount Everest?',
      'In welchem Jahr wurde Jacksonville durch Zusammenlegung Teil von Duval County?',
      '¿Dónde se encontraba el Teatro de Verano?',
    ],
    person: [
      [
        'Mrs. Johnson lives on the planet named Earth and her son is Tom Johnson.',
        ['PERSON:Johnson!', 'PERSON:Tom Johnson!'],
      ],
      ['I met Anna Berg in the city of Oslo.', ['PERSON:Anna Berg!']],
    ],
  },
  {
    name: 'an animal or a thing given a name, a team named after its kind word',
    benign: [
      'Specify the animated movie featuring a lion cub named Simba.',
      'Write a story about a crow named Corvus who loves gadgets.',
      'Câte tururi a stat echipa Denver în afara zonei de capăt după ce a primit mingea?',
    ],
    person: [
      ['I met a man named Corvus who loves gadgets.', ['PERSON:Corvus!']],
      ['My neighbour is a woman named Anna Berg.', ['PERSON:Anna Berg!']],
    ],
  },
  {
    name: 'an article of a Romance language before a work or place; days of the week',
    benign: [
      'Responde la siguiente pregunta: ¿Quién pintó la Mona Lisa?',
      'Rispondi alla seguente domanda: in quale paese si trovano le Grandi Piramidi di Giza?',
    ],
    person: [
      ['Rispondi: la Maria ha comprato tre mele.', ['PERSON:Maria!']],
      [
        'On Mondays, Wednesdays, and Fridays, college student Tom has three classes each day.',
        ['PERSON:Tom!'],
      ],
    ],
  },
  {
    name: 'a German noun after a count or "pro" that the German word list lacks',
    benign: [
      'Eine Tankstelle verkauft Benzin für 3,00 US-Dollar pro Gallone. Wie viel kostet es, wenn man 10 Gallonen tankt?',
      'Ein Händler kauft Weizen zu 20 $ pro Sack. Wie viel kostet es, wenn er den Weizen bei einem Bauern kauft?',
    ],
    person: [
      ['Jean hat 30 Lutscher und isst 2 davon, wenn er sie in eine Tüte steckt.', ['PERSON:Jean!']],
      // After an ordinal or a sentence's end, and a name after a count of other words.
      [
        'Das Haus gehört in Welt 3. Popper zufolge ist das eine Trennung, die nicht mehr gilt und die er ablehnt.',
        ['PERSON:Popper'],
      ],
      [
        'Die Lehrerin gibt 10 Schülern je 3 Äpfel und Anna Berg bekommt den Rest, wenn sie zur Schule kommt.',
        ['PERSON:Anna Berg!'],
      ],
    ],
  },
  {
    name: 'words of languages without training sentences: Vietnamese syllables, Turkish and Swahili words',
    benign: [
      'Biệt danh của Đồng bằng là gì?',
      'Thành phố nào ở Florida có dân số đông nhất?',
      'Trường đại học nào đã giành giải thưởng cho Tổ chức hỗ trợ nhiều nhất?',
      'một số người lập luận rằng có mối tương quan giữa chủ nghĩa tư bản và gì?',
      'Stratigrafi uzmanları verilerini üç boyutta görmek için hangi aracı kullanırlar?',
      'Alikula sandwichi kila siku ya wiki hii na kutumia slaisi 2 za jibini kwenye kila sandwichi.',
    ],
    person: [
      // A name of other letters in Vietnamese text, a name with a Turkish suffix, an unknown name opening a
      // Swahili sentence (no verb), and a Vietnamese name of capitalised syllables.
      ['Luther đã mô tả thánh lễ như thế nào?', ['PERSON:Luther']],
      ["Luther'in kariyerinin hangi kısmı en üretken zamanlarından biriydi?", ["PERSON:Luther'in"]],
      [
        'Nissa anaajiri wafanyakazi 60 wa kimsimu kwa kila wiki ya kazi katika duka la Santa.',
        ['PERSON:Nissa'],
      ],
      ['Nguyễn Văn Nam sống ở đâu?', ['PERSON:Nguyễn Văn!']],
    ],
  },
]

describeClasses(
  'titles, eponyms, places of a kind and words of untrained languages are no people (0.6.4)',
  CLASSES,
  [
    "Please email 'The Old Man and the Sea' to Anna Berg tomorrow.",
    'I got a letter from Alice in Accounting about the refund.',
    "Mary's disease got worse last week.",
    'I met Anna Berg in the city of Oslo.',
  ],
)
