import { describeClasses, type FindingClass } from './helpers.js'

/**
 * The classes of 0.6.6, found on the tuning part of the benign prompts: for each, prompts that 0.6.5 changed
 * (public figures, characters, organisations and places that are no one's personal data), and prompts of the same
 * shape about a private person, whose data is still found.
 */
const CLASSES: FindingClass[] = [
  {
    name: 'one-sentence knowledge questions about a full name',
    benign: [
      'When did Carl Wilhelm Scheele discover oxygen?',
      'How does Elon Musk handle stress in his daily life?',
      'Can you offer examples of how Jeff Bezos drives innovation within Amazon?',
      'Bitte beantworten Sie folgende Frage: Wann begannen die Briten unter William Trent mit dem Bau des Forts?',
      'In which year did John Sheepshanks donate a large collection of paintings?',
    ],
    person: [
      // The writer's own people, private data, a named stranger, several sentences, no question word.
      ['When did my colleague Anna Berg join the team?', ['PERSON:Anna Berg!']],
      ['What is the phone number of Anna Berg?', ['PERSON:Anna Berg!']],
      ['What is the mobile number of the student named Timmothy Ward?', ['PERSON:Timmothy Ward!']],
      ['Anna Berg called twice. When will she get her refund?', ['PERSON:Anna Berg!']],
      ['Did Anna Berg sign the contract?', ['PERSON:Anna Berg!']],
      ['Is that Dana Brown, who is now suing the firm?', ['PERSON:Dana Brown!']],
      // Work and private life (after review of 0.6.6).
      ['Why was Peter Lindqvist fired last month?', ['PERSON:Peter Lindqvist!']],
      ['Why did Mark Hughes get a bad performance review?', ['PERSON:Mark Hughes!']],
      ['How old is Maria Gonzalez?', ['PERSON:Maria Gonzalez!']],
      ['Who is Jonas Weber married to?', ['PERSON:Jonas Weber!']],
      ['When did Anna Berg join the company?', ['PERSON:Anna Berg!']],
    ],
  },
  {
    name: 'the people of a role-play set in history, fiction or fame',
    benign: [
      'You are a historian studying the life of Julius Caesar. Analyze three critical events in his life.',
      'Imagine you are an acclaimed film critic. Analyze the symbolism in Inception, written and directed by Christopher Nolan.',
    ],
    person: [
      // The writer's own customer, an errand for someone real, no role request.
      [
        'You are a support agent for a famous brand. Reply to my customer Anna Berg about her refund.',
        ['PERSON:Anna Berg!'],
      ],
      ['You are a historian. Send the draft to Anna Berg for review.', ['PERSON:Anna Berg!']],
      ['The historian Anna Berg will speak at our school about the Roman Empire.', ['PERSON:Anna Berg!']],
    ],
  },
  {
    name: 'works and ideas of a person asked about: views, vision, empire, "directed by", "written by"',
    benign: [
      "What are Angela Merkel's views on climate change and environmental policies? Answer briefly.",
      "What sea bordered Genghis Khan's empire to the east when he died? Name it.",
      'List the names of all cartoons directed by Ben Jones.',
      'Find the TV channels that are not playing cartoons written by Todd Casey.',
    ],
    person: [
      ['Forward Anna Berg the views of the committee.', ['PERSON:Anna Berg!']],
      ['The report was written by Anna Berg.', ['PERSON:Anna Berg!']],
      ['Please send the files created by Anna Berg to the auditor.', ['PERSON:Anna Berg!']],
    ],
  },
  {
    name: 'personas in other shapes: a title after "You are", a perspective, a letter as, a dialogue between',
    benign: [
      'You are Sir Isaac Newton pondering the laws of motion. Elaborate on your thoughts.',
      'Write a letter from the perspective of Amelia Earhart to her family after her flight.',
      'Write a letter as Charles Darwin, explaining the concept of evolution to a curious student.',
      'Imagine a conversation between Abraham Lincoln and George Washington discussing democracy.',
      'Step into the shoes of Gollum and explain your obsession with the One Ring.',
    ],
    person: [
      [
        'Write a summary of the conversation between Anna Berg and Tom Jensen about the budget.',
        ['PERSON:Anna Berg!', 'PERSON:Tom Jensen!'],
      ],
      ['Write a letter to Anna Berg about her overdue invoice.', ['PERSON:Anna Berg!']],
      ['You are the assistant of Anna Berg. Book her flight.', ['PERSON:Anna Berg!']],
    ],
  },
  {
    name: 'organisations asked about, or the scene of an exercise or a role',
    benign: [
      'What did the IPCC say about sea levels?',
      'Count the number of documents that use the PPT template type.',
      'Rank the teams of the NBA by titles.',
      'In the fall, 20,000 high school students apply to Harvard University. 5% of them are accepted. How many are accepted?',
      "You are NASA's chief engineer. Recommend a propulsion system for a manned mission to Mars.",
      'Imagine you are an archivist at the Library of Alexandria. Describe your daily work.',
    ],
    person: [
      [
        'Anna Berg from Globex Partners asked about the contract.',
        ['PERSON:Anna Berg!', 'ORGANIZATION:Globex Partners!'],
      ],
      // A speaker's label before a question stays (the body asked about, KFOR, goes) beside a person's data; on its
      // own ('SETimes: Can you comment …?') it is no finding since 0.6.9 (test/organizations.test.ts).
      [
        'SETimes: Can you comment on the attacks on KFOR? Write to anna.berg@example.no.',
        ['ORGANIZATION:SETimes!', 'EMAIL_ADDRESS:anna.berg@example.no!'],
      ],
      [
        'You are a support agent for Globex Partners. Customer Anna Berg asks about her refund.',
        ['ORGANIZATION:Globex Partners!', 'PERSON:Anna Berg!'],
      ],
    ],
  },
  {
    name: 'more word problems and code exercises: "how high", "what was the original price", ", find", DeShawn',
    benign: [
      'DeShawn made 12 free-throws, and Kayla made 50% more than DeShawn. How many did Kayla make?',
      'John climbs up 3 flights of stairs. Each flight is 10 feet. How high up did he go?',
      'Kyle bought a book for $19.50 with a 25% discount. What was the original price of the book?',
      'Francine drives 140km to work each day. If she does not go to work 3 days every week, find the total distance she drives in 4 weeks.',
      "How would you sort a list of dictionaries by age in Python?\n\n[{'name': 'Alice', 'age': 30}, {'name': 'Bob', 'age': 25}]",
    ],
    person: [
      // A titled colleague (a titled character alone is unmasked since 0.6.7), and a real message, keep their names.
      [
        'Mr. Trent from our office sells 20 shirts for 3 dollars each. How high is his revenue after 4 days?',
        ['PERSON:Trent!'],
      ],
      ['Meeting with DeShawn at 3pm tomorrow about the Q3 numbers.', ['PERSON:DeShawn!']],
    ],
  },
  {
    name: 'reserved example addresses in the sample data of a programming exercise',
    benign: [
      'Create a Python function that checks if a string is a valid email address.\n\ntest@example.com',
      'Design a simple user database using SQLite and Python.\n\nusername: johndoe, email: john@example.com',
      "How would you implement a simple HTTP server in Node.js?\n\nconst hostname = '127.0.0.1';",
    ],
    person: [
      // Outside a programming exercise, and a real domain inside one, the address is found.
      ['Please forward the contract to john@example.com today.', ['EMAIL_ADDRESS:john@example.com!']],
      [
        'Write a Python script that emails the report to anna.berg@gmail.com.',
        ['EMAIL_ADDRESS:anna.berg@gmail.com!'],
      ],
    ],
  },
  {
    name: 'a programming language that is also a name, beside a word of code or after "to" with another language',
    benign: [
      'Can you provide a Ruby code that takes an input array?',
      'Translate the following PHP code snippet to Ruby: echo 1',
    ],
    person: [
      ['Ask Ruby about the code review.', ['PERSON:Ruby!']],
      ['I sent the code to Julia yesterday.', ['PERSON:Julia']],
    ],
  },
  {
    name: 'places of a persona ("You are the Norse god Thor") and adjectives of a people ("ancient Egyptian history")',
    benign: [
      'You are the Norse god Thor. Share your thoughts on renewable energy.',
      'Imagine you are an expert in ancient Egyptian history, discussing the pyramids.',
      'You are a Martian ambassador to Earth. Write a brief speech.',
    ],
    person: [
      ['Anna Berg from Oslo asked about her parcel.', ['PERSON:Anna Berg!', 'LOCATION:Oslo!']],
      ['I live in Leeds and need a plumber.', ['LOCATION:Leeds']],
      ['If you are located in London, call us.', ['LOCATION:London']],
    ],
  },
]

describeClasses(
  'knowledge questions, personas and organisations that are no personal data (0.6.6)',
  CLASSES,
  [
    'When did my colleague Anna Berg join the team?',
    'What is the phone number of Anna Berg?',
    'Write a letter to Anna Berg about her overdue invoice.',
  ],
)
