"""A refund desk built with LangChain tools and LangGraph's prebuilt ReAct agent."""
